#!/usr/bin/env python3
"""Benchmark the images: how fast a container becomes usable, and what it costs.

Starts each image --runs times, one container at a time, ports on 127.0.0.1, and prints medians of:
  * desktopd: `docker run` -> desktopd's /health says ok (X answers; polled every 50 ms)
  * sidecar:  `docker run` -> the sidecar's /health says ok (Chromium up with a tab)
  * layout:   `docker run` -> GET /layout returns the start page's nodes (an agent can act)
  * healthy:  `docker run` -> Docker's own verdict (HEALTHCHECK every 3 s: coarser by design)
  * memory:   docker stats of the idle container once ready
The desktop image (no Chromium) is the baseline measured in the same run.
Needs the images (scripts/build-images.sh). Usage: .venv/bin/python benchmarks/bench_images.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
import urllib.error
import urllib.request

POLL = 0.05
TIMEOUT = 180.0


def docker(*argv: str) -> str:
    return subprocess.run(["docker", *argv], check=True, capture_output=True, text=True, timeout=120).stdout.strip()


def status_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and json.loads(response.read()).get("status") == "ok"
    except (OSError, ValueError, urllib.error.HTTPError):
        return False


def layout_ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            tabs = json.loads(response.read()).get("tabs") or []
            return bool(tabs and tabs[0].get("layout", {}).get("nodes"))
    except (OSError, ValueError, urllib.error.HTTPError):
        return False


def host_port(name: str, port: int) -> int:
    return int(docker("port", name, f"{port}/tcp").splitlines()[0].rsplit(":", 1)[1])


def one_run(image: str, name: str, with_sidecar: bool) -> dict[str, float]:
    ports = ["-p", "127.0.0.1::8080"] + (["-p", "127.0.0.1::8122"] if with_sidecar else [])
    started = time.monotonic()
    docker("run", "-d", "--name", name, "--shm-size", "1g", "-e", "DESKTOPD_INSECURE=1", "-e", "VNC_PASSWORD=benchpw1",
           *ports, image)
    try:
        desktopd = host_port(name, 8080)
        probes = {"desktopd": lambda: status_ok(f"http://127.0.0.1:{desktopd}/health")}
        if with_sidecar:
            sidecar = host_port(name, 8122)
            probes["sidecar"] = lambda: status_ok(f"http://127.0.0.1:{sidecar}/health")
            probes["layout"] = lambda: layout_ready(f"http://127.0.0.1:{sidecar}/layout")
        probes["healthy"] = lambda: docker("inspect", "-f", "{{.State.Health.Status}}", name) == "healthy"
        times: dict[str, float] = {}
        deadline = started + TIMEOUT
        while len(times) < len(probes):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name}: not ready after {TIMEOUT}s ({times}):\n{docker('logs', '--tail', '40', name)}")
            for key, probe in probes.items():
                if key not in times and probe():
                    times[key] = time.monotonic() - started
            time.sleep(POLL)
        time.sleep(2)  # let start-up work settle before reading memory
        usage = docker("stats", "--no-stream", "--format", "{{.MemUsage}}", name).split("/")[0].strip()
        times["memory_mib"] = to_mib(usage)
        return times
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", name], capture_output=True, timeout=120)


def to_mib(text: str) -> float:
    units = {"KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "B": 1 / (1 << 20)}
    for unit, factor in units.items():
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    raise ValueError(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tag", default="latest")
    args = parser.parse_args()
    images = {"desktop (baseline)": (f"desktopd/desktop:{args.tag}", False),
              "chromium": (f"desktopd/chromium:{args.tag}", True)}
    for label, (image, with_sidecar) in images.items():
        runs = [one_run(image, f"desktopd-bench-{i}-{time.time_ns() % 10**6}", with_sidecar) for i in range(args.runs)]
        size = int(docker("image", "inspect", "-f", "{{.Size}}", image)) / 1e6
        print(f"{label}: {image}, {size:.0f} MB, {args.runs} runs, medians:")
        for key in runs[0]:
            values = [run[key] for run in runs]
            unit = " MiB" if key == "memory_mib" else " s"
            print(f"  {key:>10}: {statistics.median(values):7.2f}{unit}   (min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
