#!/usr/bin/env python3
"""Benchmark episode reset: POST /api/v1/reset (windows, clipboard, pointer, and a new Chromium
on a fresh profile via the sidecar) against the baseline of restarting the whole container
(`docker restart` until desktopd's and the sidecar's /health say ok), in the same run.

The container runs the chromium image with this checkout's desktopd/ and sidecar/ mounted over
the image's copies (--image's code may predate POST /reset). Prints medians and the ratio.
Usage: .venv/bin/python benchmarks/bench_reset.py [--image desktopd/chromium:latest] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_URL = "http://127.0.0.1:8124/start.html"
POLL = 0.05
TIMEOUT = 180.0


def docker(*argv: str, timeout: float = 120) -> str:
    return subprocess.run(["docker", *argv], check=True, capture_output=True, text=True,
                          timeout=timeout).stdout.strip()


def host_port(name: str, port: int) -> int:
    return int(docker("port", name, f"{port}/tcp").splitlines()[0].rsplit(":", 1)[1])


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and json.loads(response.read()).get("status") == "ok"
    except (OSError, ValueError, urllib.error.HTTPError):
        return False


def wait(predicate, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not happen within {TIMEOUT:.0f} s")
        time.sleep(POLL)


def post_reset(port: int) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/reset", data=json.dumps({"urls": [START_URL]}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise SystemExit(f"POST /api/v1/reset answered {exc.code}: {exc.read()[:500]!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="desktopd/chromium:latest")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    name = f"bench-reset-{os.getpid()}"
    docker("run", "-d", "--name", name, "--shm-size", "1g", "-e", "DESKTOPD_INSECURE=1",
           "-e", "VNC_PASSWORD=benchpw1",
           # as images/desktop/Dockerfile sets it (an image built before it may lack it)
           "-e", "DESKTOPD_SIDECAR_URL=http://127.0.0.1:8122", "-p", "127.0.0.1::8080", "-p", "127.0.0.1::8122",
           "-v", f"{ROOT}/httpapi:/opt/desktopd/httpapi:ro",
           "-v", f"{ROOT}/desktopd:/opt/desktopd/desktopd:ro",
           "-v", f"{ROOT}/sidecar:/opt/desktopd/sidecar:ro", args.image)
    try:
        def both_ok() -> bool:
            # ports are re-read: a restarted container may be published on new host ports
            try:
                desk, side = host_port(name, 8080), host_port(name, 8122)
            except (subprocess.CalledProcessError, IndexError, ValueError):
                return False
            return healthy(f"http://127.0.0.1:{desk}/health") and healthy(f"http://127.0.0.1:{side}/health")

        wait(both_ok, "the first start")
        resets, restarts, parts = [], [], []
        for _ in range(args.runs):
            started = time.monotonic()
            body = post_reset(host_port(name, 8080))
            resets.append(time.monotonic() - started)
            parts.append(body["timings"])
            started = time.monotonic()
            docker("restart", "-t", "10", name, timeout=TIMEOUT)
            wait(both_ok, "the restart")
            restarts.append(time.monotonic() - started)
        reset_s, restart_s = statistics.median(resets), statistics.median(restarts)
        print(f"runs: {args.runs}  image: {args.image}")
        for part in parts[0]:
            print(f"  reset part {part:14s} median {statistics.median(p[part] for p in parts):.3f} s")
        print(f"POST /api/v1/reset      median {reset_s:.3f} s  (min {min(resets):.3f}, max {max(resets):.3f})")
        print(f"docker restart -> ok    median {restart_s:.3f} s  (min {min(restarts):.3f}, max {max(restarts):.3f})")
        print(f"ratio restart/reset: {restart_s / reset_s:.1f}x")
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)


if __name__ == "__main__":
    main()
