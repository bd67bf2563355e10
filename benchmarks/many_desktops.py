#!/usr/bin/env python3
"""Many desktops on one host: start N Chromium desktops (scripts/run-many.sh), let them sit idle,
then print, per desktop and in all:
  * memory: Docker's figure (`docker stats`: usage less inactive file cache) and the PSS summed
    over the container's processes (shared pages split between them, so the sum is what one more
    desktop costs);
  * idle CPU in % of one core: the container's CPU time over a window, and the processes that
    spent it (each one's utime+stime over the same window, from /proc inside the container);
  * the aggregate rate of changing steps: every desktop driven at once by its own thread, each
    step an Anthropic `left_click` on a full-window button that flips black/white, answered with
    the new screenshot (PNG, the full screen); four points in turn, so no click is a double click.
    A step counts as changing when its screenshot differs from the previous one.
The target (issue 40): idle CPU at most 1 % of a core per desktop.
Needs the image (scripts/build-images.sh) and the venv (the kit and fleet extras: requests, docker).
Usage: .venv/bin/python benchmarks/many_desktops.py N [--idle-s 20] [--window-s 20] [--steps-s 20]
       [--image desktopd/chromium:latest] [--keep]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import docker
from docker.models.containers import Container

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from desktopd_kit import Desktop  # noqa: E402

RUN_MANY = ROOT / "scripts" / "run-many.sh"
NAME_PREFIX = "desktopd-many-bench"
WIDTH, HEIGHT = 1920, 1080
# A full-window button that flips black/white at each click: every step changes the screen.
PAGE = "data:text/html," + quote(
    "<title>flip</title><style>html,body{margin:0}button{position:fixed;inset:0;border:0;"
    "background:#000}button.on{background:#fff}</style>"
    "<button onclick=\"this.classList.toggle('on')\"></button>")
POINTS = [(WIDTH // 4, HEIGHT // 4 + 100), (3 * WIDTH // 4, HEIGHT // 4 + 100),
          (3 * WIDTH // 4, 3 * HEIGHT // 4), (WIDTH // 4, 3 * HEIGHT // 4)]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Reads every process's CPU ticks and name in one exec (the container's own view of /proc).
PROC_STAT = "for s in /proc/[0-9]*/stat; do cat $s 2>/dev/null; echo; done"


@dataclass
class Running:
    name: str
    desktopd: str
    sidecar: str
    container: Container
    client: Desktop = field(init=False)

    def __post_init__(self) -> None:
        self.client = Desktop(self.desktopd, sidecar_url=self.sidecar, timeout=60)


def start(count: int, image: str, env: dict[str, str]) -> list[Running]:
    result = subprocess.run([str(RUN_MANY), str(count)], env={**env, "IMAGE": image, "RUN_MANY_NAME": NAME_PREFIX,
                            "SIDECAR_URLS": PAGE, "WIDTH": str(WIDTH), "HEIGHT": str(HEIGHT)},
                            capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"run-many.sh failed:\n{result.stdout}\n{result.stderr}")
    client = docker.from_env()
    running = []
    for line in result.stdout.splitlines():
        name, *pairs = line.split()
        urls = dict(pair.split("=", 1) for pair in pairs)
        running.append(Running(name, urls["desktopd"], urls["sidecar"], client.containers.get(name)))
        print(f"{name}: healthy after {urls['healthy_after_s']} s", flush=True)
    return running


def stop(env: dict[str, str]) -> None:
    subprocess.run([str(RUN_MANY), "stop"], env={**env, "RUN_MANY_NAME": NAME_PREFIX},
                   capture_output=True, timeout=300)


# The container's CPU time as the host's cgroup files say it (read on the host: nothing runs in
# the container for it), cgroup v1 or v2, else Docker's stats API.
CGROUP_CPU = ("/sys/fs/cgroup/cpuacct/docker/{id}/cpuacct.usage",
              "/sys/fs/cgroup/system.slice/docker-{id}.scope/cpu.stat",
              "/sys/fs/cgroup/docker/{id}/cpu.stat")


def cpu_ns(container: Container) -> int:
    for pattern in CGROUP_CPU:
        path = Path(pattern.format(id=container.id))
        if path.is_file():
            text = path.read_text()
            if path.name == "cpu.stat":   # v2: usage_usec
                return int(dict(line.split() for line in text.splitlines())["usage_usec"]) * 1000
            return int(text)
    return int(container.stats(stream=False)["cpu_stats"]["cpu_usage"]["total_usage"])


def memory_mib(container: Container) -> float:
    """What `docker stats` shows: usage less the inactive file cache (cgroup v1 or v2)."""
    memory = container.stats(stream=False)["memory_stats"]
    stats = memory.get("stats", {})
    inactive = stats.get("total_inactive_file", stats.get("inactive_file", 0))
    return (memory["usage"] - inactive) / 2 ** 20


def pss_mib(container: Container) -> float:
    code, output = container.exec_run(["sh", "-c", "cat /proc/[0-9]*/smaps_rollup 2>/dev/null"])
    kib = sum(int(line.split()[1]) for line in output.decode().splitlines() if line.startswith("Pss:"))
    return kib / 1024


def process_ticks(container: Container) -> dict[tuple[int, str], int]:
    """(pid, name) -> utime+stime in clock ticks, for every process in the container."""
    _code, output = container.exec_run(["sh", "-c", PROC_STAT])
    ticks = {}
    for line in output.decode(errors="replace").splitlines():
        if ") " not in line:
            continue
        head, _, rest = line.rpartition(") ")
        pid, _, name = head.partition(" (")
        fields = rest.split()
        ticks[(int(pid), name)] = int(fields[11]) + int(fields[12])   # utime, stime
    return ticks


def idle_cpu(desktops: list[Running], window_s: float) -> dict[str, tuple[float, list[tuple[str, float]]]]:
    """name -> (% of one core over the window, [(process, % of a core)]: what short-lived
    processes spent, then the busiest)."""
    # Each exec into a container costs it CPU: its process list is read before its CPU time at
    # the start and after it at the end, so that neither read falls inside the window.
    ticks_before = {d.name: process_ticks(d.container) for d in desktops}
    before = {d.name: (cpu_ns(d.container), time.monotonic()) for d in desktops}
    time.sleep(window_s)   # the measurement window itself: the desktops are left alone in it
    after = {d.name: (cpu_ns(d.container), time.monotonic()) for d in desktops}
    out = {}
    for d in desktops:
        ticks, after_ticks = ticks_before[d.name], process_ticks(d.container)
        elapsed = after[d.name][1] - before[d.name][1]
        total = (after[d.name][0] - before[d.name][0]) / 1e9 / elapsed * 100
        busiest = sorted(((f"{name}[{pid}]", (after_ticks[key] - ticks[key]) / CLOCK_TICKS / elapsed * 100)
                          for key in after_ticks.keys() & ticks.keys() for pid, name in [key]),
                         key=lambda item: -item[1])
        # What no process alive at both ends spent: short-lived ones (Docker's health probes
        # and other execs, children that exited).
        short_lived = max(total - sum(share for _, share in busiest), 0.0)
        out[d.name] = (total, [("short-lived", short_lived)] + [item for item in busiest if item[1] > 0][:5])
    return out


def steps(desktops: list[Running], seconds: float) -> dict[str, tuple[int, int]]:
    """name -> (steps, changing steps) in `seconds` of all desktops stepping at once."""
    counts: dict[str, tuple[int, int]] = {}
    barrier = threading.Barrier(len(desktops))

    def drive(d: Running) -> None:
        previous, done, changed, i = None, 0, 0, 0
        for _ in range(4):   # warm-up: connections, the page's first clicks
            d.client.anthropic({"action": "left_click", "coordinate": list(POINTS[i % 4])})
            i += 1
        barrier.wait()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = d.client.anthropic({"action": "left_click", "coordinate": list(POINTS[i % 4])})
            i += 1
            image = next(block for block in answer["content"] if block.get("type") == "image")
            digest = hashlib.sha256(image["source"]["data"].encode()).digest()
            done += 1
            changed += digest != previous
            previous = digest
        counts[d.name] = (done, changed)

    threads = [threading.Thread(target=drive, args=(d,)) for d in desktops]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int)
    parser.add_argument("--image", default=os.environ.get("IMAGE", "desktopd/chromium:latest"))
    parser.add_argument("--idle-s", type=float, default=20.0, help="idle time after healthy before measuring")
    parser.add_argument("--window-s", type=float, default=20.0, help="the idle CPU measurement window")
    parser.add_argument("--steps-s", type=float, default=20.0, help="how long all desktops step at once")
    parser.add_argument("--keep", action="store_true", help="leave the desktops running (run-many.sh stop)")
    args = parser.parse_args()
    env = dict(os.environ)
    started = time.monotonic()
    desktops = start(args.count, args.image, env)
    try:
        print(f"{args.count} desktops healthy in {time.monotonic() - started:.1f} s; idle {args.idle_s:.0f} s",
              flush=True)
        time.sleep(args.idle_s)   # issue 40 measures idle figures 20 s after healthy
        cpu = idle_cpu(desktops, args.window_s)
        print(f"\nidle, over {args.window_s:.0f} s ({args.image}, {WIDTH}x{HEIGHT}):")
        print(f"{'desktop':<24} {'docker MiB':>10} {'PSS MiB':>8} {'CPU % core':>10}  busiest processes (% core)")
        for d in desktops:
            total, busiest = cpu[d.name]
            print(f"{d.name:<24} {memory_mib(d.container):>10.0f} {pss_mib(d.container):>8.0f} {total:>10.2f}  "
                  + ", ".join(f"{name} {share:.2f}" for name, share in busiest))
        mean_cpu = sum(total for total, _ in cpu.values()) / len(cpu)
        print(f"mean idle CPU per desktop: {mean_cpu:.2f} % of a core (target <= 1 %)")
        counts = steps(desktops, args.steps_s)
        total_steps = sum(done for done, _ in counts.values())
        total_changed = sum(changed for _, changed in counts.values())
        print(f"\nchanging steps (Anthropic left_click + PNG {WIDTH}x{HEIGHT}), all {args.count} at once "
              f"for {args.steps_s:.0f} s:")
        for name, (done, changed) in counts.items():
            print(f"  {name}: {done / args.steps_s:.1f} steps/s ({changed} of {done} changed the screen)")
        print(f"aggregate: {total_steps / args.steps_s:.1f} steps/s ({total_changed} of {total_steps} changed)")
    finally:
        if not args.keep:
            stop(env)


if __name__ == "__main__":
    main()
