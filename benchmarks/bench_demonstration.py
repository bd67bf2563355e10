#!/usr/bin/env python3
"""What capturing a person's demonstration costs, in one run on a fresh Xvfb (1280x800) with
desktopd, the person being xdotool (another X client injecting through XTEST, as x11vnc does).

  * CPU: desktopd's CPU seconds (utime + stime from /proc) while the person types and clicks a
    fixed workload, without a demonstration (the baseline) and with one whose actions a client
    follows; rounds alternate so drift hits both alike. Printed with the ratio to the baseline.
  * latency: from the person's input (the action's last event, by the X server's timestamp on
    desktopd's wall clock: the same machine's) to (a) the action's line arriving on desktopd's
    stream and (b) its step line written by the kit's Demonstration (which first takes the
    settled after screenshot, and the snapshot with a sidecar). Key combinations are
    measured (emitted at once; a click waits double_click_ms for a second click, typed text
    typing_idle_ms or the next action, by design).
Usage: .venv/bin/python benchmarks/bench_demonstration.py [--rounds 3] [--keys 200] [--clicks 40] [--samples 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopd_kit import Desktop  # noqa: E402
from desktopd_kit.records import Demonstration  # noqa: E402
from testbed.desktopd import start_desktopd  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS     # utime, stime


def person(display: str, *argv: str) -> None:
    subprocess.run(["xdotool", *argv], env={**os.environ, "DISPLAY": display}, check=True, timeout=120)


def workload(display: str, keys: int, clicks: int) -> None:
    person(display, "type", "--delay", "5", ("abcdefghij" * (keys // 10 + 1))[:keys])
    for i in range(clicks):
        person(display, "mousemove", str(100 + 10 * i), "200", "click", "1")


def cpu_round(desktop: Desktop, pid: int, display: str, keys: int, clicks: int, capture: bool) -> tuple[float, float]:
    """(desktopd's CPU seconds, the workload's wall seconds)."""
    follower = None
    if capture:
        desktop.demonstration_start()
        follower = threading.Thread(target=lambda: sum(1 for _ in desktop.demonstration_actions()), daemon=True)
        follower.start()
    before, started = cpu_seconds(pid), time.monotonic()
    workload(display, keys, clicks)
    used, wall = cpu_seconds(pid) - before, time.monotonic() - started
    if capture:
        desktop.demonstration_stop()
        assert follower is not None
        follower.join(30)
    return used, wall


def stream_latency(desktop: Desktop, display: str, samples: int) -> list[float]:
    """Seconds from the action's last event (the X server's timestamp, as desktopd's wall
    clock: the same machine's) to its line arriving here (read by a thread of its own, so the
    arrival is stamped while xdotool is still running)."""
    desktop.demonstration_start()
    arrivals: list[float] = []
    lags: list[float] = []

    def read() -> None:
        for line in desktop.demonstration_actions():
            if "seq" in line:
                lags.append(line["capture_lag_ms"] / 1000.0)
                arrivals.append(time.time() - line["end_wall"] + lags[-1])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        for index in range(1, samples + 1):
            person(display, "key", "ctrl+b")
            deadline = time.monotonic() + 30
            while len(arrivals) < index and time.monotonic() < deadline:
                time.sleep(0.005)
    finally:
        desktop.demonstration_stop()
        reader.join(30)
    print(f"  X server -> desktopd (the event's server time to RECORD's reader): {ms(lags)}")
    return arrivals


def record_latency(desktop: Desktop, display: str, samples: int, directory: Path) -> list[float]:
    """Seconds from the action's last event to its step line being written by Demonstration."""
    with Demonstration(desktop, directory, episode_id="bench") as demo:
        for index in range(1, samples + 1):
            person(display, "key", "ctrl+b")
            assert demo.wait_for_steps(index, 30)
    out = []
    for line in (demo.directory / "steps.jsonl").read_text().splitlines():
        d = json.loads(line)["demonstration"]
        out.append(d["recorded_wall"] - d["end_wall"] + d["capture_lag_ms"] / 1000.0)
    return out


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--clicks", type=int, default=40)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        xvfb = start_xvfb(1280, 800, log_path=str(Path(tmp) / "xvfb.log"))
        display = xvfb.display
        server = start_desktopd(display)
        try:
            desktop = Desktop(server.url, token=server.token)
            cpu_round(desktop, server.process.pid, display, 20, 2, True)     # warm both paths
            base, captured = [], []
            for _ in range(args.rounds):
                base.append(cpu_round(desktop, server.process.pid, display, args.keys, args.clicks, False))
                captured.append(cpu_round(desktop, server.process.pid, display, args.keys, args.clicks, True))
            print(f"workload: {args.keys} keys typed + {args.clicks} clicks by xdotool, {args.rounds} rounds each")
            events = 2 * args.keys + 4 * args.clicks      # presses and releases
            for name, runs in (("without a demonstration", base), ("with a demonstration:  ", captured)):
                cpu, wall = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
                print(f"desktopd CPU {name} {cpu:.3f} s over {wall:.1f} s ({100 * cpu / wall:.1f}% of a core; "
                      f"{1e6 * cpu / events:.0f} us per device event; rounds {', '.join(f'{r[0]:.2f}' for r in runs)})")
            print(f"input -> action on the stream: {ms(stream_latency(desktop, display, args.samples))}")
            print(f"input -> step record written (kit: its after screenshot settled first): "
                  f"{ms(record_latency(desktop, display, args.samples, Path(tmp)))}")
        finally:
            server.stop()
            xvfb.stop()


if __name__ == "__main__":
    main()
