#!/usr/bin/env python3
"""Compare the sidecar of this tree with the sidecar of another checkout, request by request.

For a refactor, "speed unchanged" must hold on a host other work is loading, where wall times
swing by 2x between minutes. So beside the wall time this measures what a request costs in CPU
(the sidecar's process and its Chromium's, from /proc), which the load barely moves, and it
alternates the two trees round by round so that a slow stretch falls on both.

Per tree and round: the tree's own `python -m sidecar` on a fresh Xvfb shows a generated page of
N elements (testbed's /gen/N, served here); then, timed request by request:
  * layout-warm:    GET /layout, page unchanged;
  * layout-change:  GET /layout right after a button in the middle was renamed (through CDP);
  * snapshot-warm:  GET /snapshot, page unchanged;
  * snapshot-change: GET /snapshot right after a rename;
  * act-click:      POST /act a click by ref (cdp mode, no snapshot back) on a button of the page.
Printed per tree: the median wall ms of a request, and the CPU ms a request cost (a batch's CPU,
renames included, less the tree's idle rate over the batch's duration, over its requests; the
median of the rounds' batches); the ratio this tree /
the other (below 1: this tree is cheaper).

Usage: .venv/bin/python benchmarks/bench_revisions.py --baseline-tree /path/to/old/checkout
         [--sizes 2000,10000] [--rounds 3] [--requests 20]
  (make the old checkout with `git worktree add --detach /tmp/old <rev>`; both trees run on this
  venv's Python.)
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sidecar.cdp.connection import CDPConnection  # noqa: E402
from sidecar.cdp.targets import TargetTracker  # noqa: E402
from testbed.children import start_sidecar  # noqa: E402
from testbed.pages import PageServer, free_port  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402

RENAME = ("{ const b = document.querySelectorAll('button'); "
          "b[b.length >> 1].textContent = 'Renamed ' + Date.now(); }")
OPERATIONS = ("layout-warm", "layout-change", "snapshot-warm", "snapshot-change", "act-click")
BUTTON_REF = re.compile(r'- button "[^"]*" \[ref=(\w+)\]')
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Before each batch the sidecar and its Chromium are let finish what the last one started (a
# page's load starts a background read): quiet = under this share of a core over QUIET_WINDOW_S.
QUIET_SHARE, QUIET_WINDOW_S, QUIET_BUDGET_S = 0.03, 0.5, 30.0
IDLE_WINDOW_S = 2.0


def cpu_seconds_of_tree(root_pid: int) -> dict[int, float]:
    """utime + stime of ``root_pid`` and every process below it, by pid."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue                       # exited while we looked
        parent = int(fields[1])
        children.setdefault(parent, []).append(int(entry))
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    out: dict[int, float] = {}
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        if pid in times:
            out[pid] = times[pid]
        stack.extend(children.get(pid, []))
    return out


def cpu_spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two readings (a process born in between counts whole)."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())


async def until_quiet(root_pid: int) -> None:
    """Return once the process tree spends under QUIET_SHARE of a core (at most QUIET_BUDGET_S)."""
    deadline = time.monotonic() + QUIET_BUDGET_S
    while time.monotonic() < deadline:
        before = cpu_seconds_of_tree(root_pid)
        await asyncio.sleep(QUIET_WINDOW_S)
        if cpu_spent(before, cpu_seconds_of_tree(root_pid)) < QUIET_SHARE * QUIET_WINDOW_S:
            return


async def idle_cpu_rate(root_pid: int) -> float:
    """CPU seconds per second the quiet process tree spends with no request (over IDLE_WINDOW_S)."""
    before = cpu_seconds_of_tree(root_pid)
    await asyncio.sleep(IDLE_WINDOW_S)
    return cpu_spent(before, cpu_seconds_of_tree(root_pid)) / IDLE_WINDOW_S


@dataclass
class Samples:
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


async def measure_tree(tree: Path, display: str, page_url: str, requests: int,
                       results: dict[str, Samples]) -> None:
    sidecar = await start_sidecar(display, page_url, extra=("--cdp-port", str(free_port())), tree=tree)
    try:
        async with aiohttp.ClientSession() as http:
            _status, health = await sidecar.get(http, "/health")
            cdp = await CDPConnection.connect(health["cdp_url"])
            try:
                tracker = TargetTracker(cdp)
                await tracker.start()
                page = tracker.pages()[0]

                async def get(path: str) -> None:
                    async with http.get(sidecar.url + path, params={"tab": page.target_id}) as response:
                        body = await response.read()
                        if response.status != 200:
                            raise RuntimeError(f"{path}: {response.status} {body[:200]!r}")

                async def rename() -> None:
                    await page.send("Runtime.evaluate", {"expression": RENAME})

                for path in ("/layout", "/snapshot"):      # first reads: not measured
                    await get(path)
                async with http.get(sidecar.url + "/snapshot", params={"tab": page.target_id}) as response:
                    found = BUTTON_REF.search(await response.text())
                if found is None:
                    raise RuntimeError("no button ref in the snapshot")
                click = {"kind": "click", "ref": found.group(1), "mode": "cdp", "tab": page.target_id,
                         "snapshot": False}

                async def act() -> None:
                    async with http.post(sidecar.url + "/act", json=click) as response:
                        body = await response.read()
                        if response.status != 200:
                            raise RuntimeError(f"/act: {response.status} {body[:200]!r}")
                for operation in OPERATIONS:
                    request = act if operation == "act-click" else functools.partial(
                        get, "/" + operation.split("-")[0])
                    await until_quiet(sidecar.process.pid)
                    idle_rate = await idle_cpu_rate(sidecar.process.pid)
                    # CPU is counted in clock ticks (10 ms): over the whole batch, then divided.
                    cpu_before = cpu_seconds_of_tree(sidecar.process.pid)
                    batch_start = time.perf_counter()
                    for _ in range(requests):
                        if operation.endswith("change"):
                            await rename()
                        start = time.perf_counter()
                        await request()
                        results[operation].wall_ms.append((time.perf_counter() - start) * 1000)
                    cpu = cpu_spent(cpu_before, cpu_seconds_of_tree(sidecar.process.pid))
                    # What Chromium spends anyway (timers, GC) while a slow host stretches the
                    # batch is not the requests' cost.
                    cpu = max(0.0, cpu - idle_rate * (time.perf_counter() - batch_start))
                    results[operation].cpu_ms.append(cpu * 1000 / requests)
            finally:
                await cdp.close()
    finally:
        await sidecar.close()


def ratio(mine: list[float], theirs: list[float]) -> str:
    base = statistics.median(theirs)
    return f"{statistics.median(mine) / base:5.2f}" if base > 0 else "  n/a"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-tree", required=True, type=Path)
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    trees = {"this": ROOT, "baseline": args.baseline_tree.resolve()}
    xvfb = start_xvfb(1280, 800)
    server = PageServer()
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            results = {name: {op: Samples() for op in OPERATIONS} for name in trees}
            for round_number in range(args.rounds):
                order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
                for name in order:
                    await measure_tree(trees[name], xvfb.display, server.url(f"/gen/{size}"),
                                       args.requests, results[name])
            print(f"{size} elements: {args.rounds} rounds x {args.requests} requests; "
                  "ratio = this tree / baseline")
            print(f"  {'operation':16} {'wall this':>10} {'baseline':>9} {'ratio':>6}   "
                  f"{'CPU this':>9} {'baseline':>9} {'ratio':>6}")
            for op in OPERATIONS:
                mine, theirs = results["this"][op], results["baseline"][op]
                print(f"  {op:16} {statistics.median(mine.wall_ms):10.1f} "
                      f"{statistics.median(theirs.wall_ms):9.1f} {ratio(mine.wall_ms, theirs.wall_ms)}   "
                      f"{statistics.median(mine.cpu_ms):9.1f} {statistics.median(theirs.cpu_ms):9.1f} "
                      f"{ratio(mine.cpu_ms, theirs.cpu_ms)}")
    finally:
        server.stop()
        xvfb.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
