#!/usr/bin/env python3
"""Benchmark what an episode costs: this image against a baseline image, in one run.

Prints, for both images (their runs interleaved, so both see the same host load): POST
/api/v1/reset with a URL until it answers (the URL loaded, the front tab) p50/p95, `docker run`
until desktopd's and the sidecar's /health say ok p50, `docker restart` until ok (the peer a
reset replaces), idle memory (`docker stats` --idle-wait s after healthy; one alone, and each of
--many at once), the image size, and the ratios. --timeline prints, for one start of each,
when each program was spawned and became ready (from `docker logs -t`); --pss each process's
proportional set size idle and after a typical episode (read from the host's /proc: run as
root). Then changing steps per second on each (benchmarks/bench_step_speed.py's three ways on its
flip page, given as a data: URL; --steps 0 skips them): Anthropic left_click + PNG at 1920x1080 and
at 1280x800, DesktopEnv.step with a 1280x800 JPEG, in blocks alternated between the images.

Build the baseline from the parent commit first, e.g.:
  git worktree add /tmp/baseline HEAD~1 && (cd /tmp/baseline && IMAGE_TAG=baseline scripts/build-images.sh chromium)
Usage: .venv/bin/python benchmarks/bench_episode.py --image desktopd/chromium:latest \\
           --baseline desktopd/chromium:baseline [--starts 5] [--resets 20] [--timeline] [--pss]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

START_URL = "file:///usr/share/desktopd/start.html"
POLL_S = 0.02
TIMEOUT_S = 180.0
MIB = 1024 * 1024


def docker(*argv: str, timeout: float = 120) -> str:
    return subprocess.run(["docker", *argv], check=True, capture_output=True, text=True,
                          timeout=timeout).stdout.strip()


@dataclass
class Running:
    name: str
    image: str
    started: float                    # time.time() just before `docker run`
    ports: dict[int, int] = field(default_factory=dict)

    def url(self, port: int, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[port]}{path}"

    def read_ports(self) -> bool:
        try:
            for port in (8080, 8122):
                self.ports[port] = int(docker("port", self.name, f"{port}/tcp").splitlines()[0].rsplit(":", 1)[1])
        except (subprocess.CalledProcessError, IndexError, ValueError):
            return False
        return True


def run(image: str, tag: str) -> Running:
    name = f"bench-episode-{tag}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
    started = time.time()
    docker("run", "-d", "--name", name, "--shm-size", "1g", "-e", "DESKTOPD_INSECURE=1",
           "-e", "VNC_PASSWORD=benchpw1", "-p", "127.0.0.1::8080", "-p", "127.0.0.1::8122", image)
    return Running(name, image, started)


def remove(running: Running) -> None:
    subprocess.run(["docker", "rm", "-f", running.name], capture_output=True, timeout=60)


def ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and json.loads(response.read()).get("status") == "ok"
    except (OSError, ValueError, urllib.error.HTTPError):
        return False


def wait(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not happen within {TIMEOUT_S:.0f} s")
        time.sleep(POLL_S)


def both_ok(running: Running) -> bool:
    # ports are re-read: a restarted container may be published on new host ports
    return running.read_ports() and ok(running.url(8080, "/health")) and ok(running.url(8122, "/health"))


def start(image: str, tag: str) -> tuple[Running, float]:
    """A new container and the seconds from `docker run` until both /health say ok."""
    running = run(image, tag)
    try:
        wait(lambda: both_ok(running), f"{image} healthy")
    except BaseException:
        remove(running)
        raise
    return running, time.time() - running.started


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise SystemExit(f"POST {url} answered {exc.code}: {exc.read()[:500]!r}") from None


def reset(running: Running) -> tuple[float, dict]:
    started = time.monotonic()
    answer = post(running.url(8080, "/api/v1/reset"), {"urls": [START_URL]})
    return time.monotonic() - started, answer


def restart(running: Running) -> float:
    started = time.monotonic()
    docker("restart", "-t", "10", running.name, timeout=TIMEOUT_S)
    wait(lambda: both_ok(running), f"{running.name} healthy after a restart")
    return time.monotonic() - started


def memory_mib(names: Sequence[str]) -> dict[str, float]:
    """`docker stats`' memory use of each container (what the issue's figures are)."""
    units = {"B": 1 / MIB, "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0}
    out = docker("stats", "--no-stream", "--format", "{{.Name}} {{.MemUsage}}", *names)
    found = {}
    for line in out.splitlines():
        name, usage = line.split(" ", 1)
        match = re.match(r"([\d.]+)\s*([KMG]?i?B)", usage)
        if match:
            found[name] = float(match.group(1)) * units[match.group(2)]
    return found


def pss_table(running: Running) -> dict[str, float]:
    """MiB of proportional set size per program (processes of one program summed), from /proc."""
    table: dict[str, float] = {}
    for pid in docker("top", running.name, "-eo", "pid").split()[1:]:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                pss_kib = next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
        except (OSError, StopIteration):
            continue
        table[program_name(argv)] = table.get(program_name(argv), 0.0) + pss_kib / 1024
    return table


def program_name(argv: list[bytes]) -> str:
    words = [word.decode("utf-8", "replace") for word in argv if word]
    if len(words) == 1:
        words = words[0].split()      # Chromium rewrites its command line as one string
    if not words:
        return "?"
    base = os.path.basename(words[0])
    if base in ("python3", "python") and len(words) > 1:
        module = words[words.index("-m") + 1] if "-m" in words else os.path.basename(words[1])
        return f"python: {module}"
    kind = next((w.split("=", 1)[1] for w in words if w.startswith("--type=")), None)
    if base in ("chromium", "chrome") or "--change-stack-guard-on-fork=enable" in words:
        if kind == "renderer" and "--top-chrome-webui" in words:
            kind = "renderer (browser UI)"
        extra = next((w.split("=", 1)[1].split(".")[0] for w in words if w.startswith("--utility-sub-type=")), None)
        return f"chromium {kind or 'browser'}" + (f" {extra}" if extra else "")
    return base


def typical_episode(running: Running) -> None:
    """A reset, screenshots, clicks, typing and layouts: what an agent's episode does."""
    reset(running)
    for index in range(10):
        with urllib.request.urlopen(running.url(8080, "/api/v1/screenshot"), timeout=60) as response:
            response.read()
        post(running.url(8080, "/api/v1/tablet"), {"action": "tap", "x": 100 + index * 40, "y": 300})
        post(running.url(8080, "/api/v1/keyboard"), {"text": "episode"})
        with urllib.request.urlopen(running.url(8122, "/layout"), timeout=60) as response:
            response.read()


READY_LINES = (("supervisord started", "supervisord"), ("spawned: '", "spawned"),
               ("desktopd listening", "desktopd listening"), ("sidecar listening", "sidecar listening"),
               ("Chromium ready", "Chromium ready"), ("Listen on :", "noVNC listening"),
               ("The VNC desktop is", "x11vnc listening"))


def timeline(running: Running, healthy_after: float) -> list[tuple[float, str]]:
    """(seconds after `docker run`, event) from the container's timestamped log."""
    logs = subprocess.run(["docker", "logs", "-t", running.name], capture_output=True, text=True,
                          timeout=60)
    events = []
    for line in (logs.stdout + logs.stderr).splitlines():
        stamp, _, text = line.partition(" ")
        for needle, label in READY_LINES:
            if needle in text:
                if label == "spawned":
                    label = "spawned " + text.split("spawned: '", 1)[1].split("'", 1)[0]
                moment = time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
                moment += float("0." + stamp[20:29].rstrip("Z") or "0")
                events.append((moment - running.started, label))
    events.append((healthy_after, "both /health ok"))
    return sorted(events)


def p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def step_rates(kept: dict[str, Running], steps: int, block: int) -> dict[str, dict[str, float]]:
    """Each changing-step way's median steps/s per image, and how many screenshots showed their
    click's flip (of the steps that followed another)."""
    from bench_step_speed import changing_steps, flip_data_url
    tags = list(kept)
    cases = changing_steps([(kept[tag].url(8080, ""), kept[tag].url(8122, "")) for tag in tags],
                           flip_data_url(), steps, block)
    rows: dict[str, dict[str, float]] = {}
    for name, ways in cases:
        for tag, way in zip(tags, ways):
            rows.setdefault(f"{name} (steps/s)", {})[tag] = 1 / statistics.median(way.walls)
            rows.setdefault(f"{name}: flips shown (of {way.steps - 1})", {})[tag] = way.shown
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="desktopd/chromium:latest")
    parser.add_argument("--baseline", default="desktopd/chromium:baseline")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--many", type=int, default=3)
    parser.add_argument("--idle-wait", type=float, default=20.0)
    parser.add_argument("--timeline", action="store_true")
    parser.add_argument("--pss", action="store_true")
    parser.add_argument("--steps", type=int, default=40, help="changing steps per way and image (0: none)")
    parser.add_argument("--block", type=int, default=10, help="steps in a row on one image")
    args = parser.parse_args()
    images = {"baseline": args.baseline, "this": args.image}
    rows: dict[str, dict[str, float]] = {}

    def put(metric: str, tag: str, value: float) -> None:
        rows.setdefault(metric, {})[tag] = value

    for tag, image in images.items():
        put("image size (MB)", tag, int(docker("image", "inspect", "-f", "{{.Size}}", image)) / 1e6)
    starts: dict[str, list[float]] = {tag: [] for tag in images}
    kept: dict[str, Running] = {}
    try:
        for round_ in range(args.starts):
            for tag, image in images.items():
                running, seconds = start(image, tag)
                starts[tag].append(seconds)
                if args.timeline and round_ == args.starts - 1:
                    print(f"\ntimeline of {image} (s after docker run):")
                    for moment, label in timeline(running, seconds):
                        print(f"  {moment:7.2f}  {label}")
                if round_ == args.starts - 1:
                    kept[tag] = running
                else:
                    remove(running)
        for tag in images:
            put("start: docker run -> both /health ok, p50 (s)", tag, statistics.median(starts[tag]))
        time.sleep(args.idle_wait)
        idle = memory_mib([running.name for running in kept.values()])
        for tag, running in kept.items():
            put("idle memory, one alone (MiB)", tag, idle[running.name])
        if args.pss:
            pss_idle = {tag: pss_table(running) for tag, running in kept.items()}
        resets: dict[str, list[float]] = {tag: [] for tag in images}
        parts: dict[str, list[dict]] = {tag: [] for tag in images}
        for _ in range(args.resets):
            for tag, running in kept.items():
                seconds, answer = reset(running)
                resets[tag].append(seconds)
                parts[tag].append({**answer["timings"], **{f"browser.{k}": v for k, v in
                                                            (answer["browser"] or {}).get("timings", {}).items()}})
        for tag in images:
            put("reset with a URL, p50 (s)", tag, statistics.median(resets[tag]))
            put("reset with a URL, p95 (s)", tag, p(resets[tag], 0.95))
        if args.pss:
            for running in kept.values():
                typical_episode(running)
            pss_episode = {tag: pss_table(running) for tag, running in kept.items()}
        if args.steps:
            for metric, values in step_rates(kept, args.steps, args.block).items():
                for tag, value in values.items():
                    put(metric, tag, value)
        restarts: dict[str, list[float]] = {tag: [] for tag in images}
        for _ in range(args.restarts):
            for tag, running in kept.items():
                restarts[tag].append(restart(running))
        for tag in images:
            put("docker restart -> both ok, p50 (s)", tag, statistics.median(restarts[tag]))
        for running in kept.values():
            remove(running)
        kept.clear()
        for tag, image in images.items():
            many = []
            try:
                for index in range(args.many):
                    many.append(start(image, f"{tag}{index}")[0])
                time.sleep(args.idle_wait)
                usage = memory_mib([running.name for running in many])
                put(f"idle memory, each of {args.many} at once, max (MiB)", tag, max(usage.values()))
            finally:
                for running in many:
                    remove(running)
    finally:
        for running in kept.values():
            remove(running)

    print(f"\nbaseline: {args.baseline}   this: {args.image}   starts {args.starts}, resets "
          f"{args.resets}, restarts {args.restarts}, idle after {args.idle_wait:.0f} s")
    print("| what | baseline | this | this/baseline |\n|---|---|---|---|")
    for metric, values in rows.items():
        base, this = values.get("baseline"), values.get("this")
        ratio = f"{this / base:.2f}" if base and this is not None else "-"
        print(f"| {metric} | {base:.3f} | {this:.3f} | {ratio} |" if base is not None and this is not None
              else f"| {metric} | {base} | {this} | - |")
    for tag in images:
        if parts[tag]:
            print(f"\nreset parts, {images[tag]} (median s):")
            for part in sorted({key for entry in parts[tag] for key in entry}):
                values = [entry[part] for entry in parts[tag] if part in entry]
                print(f"  {part:24s} {statistics.median(values):.3f}")
    if args.pss:
        for tag in images:
            print(f"\nPSS by program, {images[tag]} (MiB): idle / after a typical episode")
            programs = sorted(set(pss_idle[tag]) | set(pss_episode[tag]),
                              key=lambda name: -pss_episode[tag].get(name, 0.0))
            for name in programs:
                print(f"| {name} | {pss_idle[tag].get(name, 0.0):.1f} | {pss_episode[tag].get(name, 0.0):.1f} |")
            print(f"| total | {sum(pss_idle[tag].values()):.1f} | {sum(pss_episode[tag].values()):.1f} |")


if __name__ == "__main__":
    main()
