#!/usr/bin/env python3
"""What Sway's damage source for the settle costs (desktopd/sway/damage.py), in one run.

    .venv/bin/python benchmarks/bench_sway_damage.py [--rounds 5] [--window 3]

A headless Sway started as the desktop image starts it (images/desktop/rootfs/usr/local/bin/
start-sway, 1280x800), on an idle desktop and with a window redrawing every frame
(testbed/redrawing_client.py, 60 frames a second, a 64x64 square), and with Chromium on Wayland
showing a page whose CSS animation slides a box for ever (the sidecar's flags). Per case, the same window of
--window seconds without the watcher (the baseline) and with it, alternated --rounds times so
load from other processes hits both alike. Printed, medians: Sway's CPU (its /proc stat), the
watcher's own CPU (this process's: it runs nothing else meanwhile), frames the watcher had
copied and changes it logged, per second; and the ratio of Sway's CPU with the watcher to
without. Every loop is bounded; the processes it started are stopped."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from desktopd.sway.damage import SwayDamageWatcher  # noqa: E402
from sidecar.browser.launcher import CONTAINER_FLAGS  # noqa: E402
from swayipc.ipc import SwayIpc  # noqa: E402
from testbed.processes import terminate  # noqa: E402

START_SWAY = os.path.join(ROOT, "images/desktop/rootfs/usr/local/bin/start-sway")
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
APP_ID = "bench-redrawing"
# A page that animates: a box sliding back and forth for ever (CSS, Chromium's compositor).
PAGE = ("data:text/html,<title>animating</title><style>div{width:200px;height:200px;background:teal;"
        "animation:s 1s linear infinite alternate}@keyframes s{to{transform:translateX(600px)}}</style><div></div>")
WAIT_S = 30.0


@dataclass
class Compositor:
    process: subprocess.Popen
    env: dict[str, str]

    def cpu_s(self) -> float:
        with open(f"/proc/{self.process.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * TICK_S   # utime + stime, every thread


@contextmanager
def headless_sway(width: int, height: int) -> Iterator[Compositor]:
    runtime = tempfile.mkdtemp(prefix="bench-sway-")
    os.chmod(runtime, 0o700)
    drop: list[str] = []
    if os.getuid() == 0:   # Sway refuses root: run it as nobody, in a runtime dir of theirs
        os.chown(runtime, 65534, 65534)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1", "HOME": runtime,
           "SWAYSOCK": os.path.join(runtime, "sway-ipc.sock"), "WIDTH": str(width), "HEIGHT": str(height)}
    env.pop("DISPLAY", None)
    with open(os.path.join(tempfile.gettempdir(), "bench-sway.log"), "wb") as log:
        process = subprocess.Popen([*drop, START_SWAY], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + WAIT_S
        while not (os.path.exists(env["SWAYSOCK"]) and os.path.exists(os.path.join(runtime, "wayland-1"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Sway did not start: see bench-sway.log in the temporary directory")
            time.sleep(0.05)   # bounded: the sockets appear once Sway listens
        yield Compositor(process, env)
    finally:
        terminate(process)
        shutil.rmtree(runtime, ignore_errors=True)


@contextmanager
def showing(sway: Compositor, argv: list[str], seen: str) -> Iterator[None]:
    """``argv`` running until its window, whose tree node mentions ``seen``, is on the screen."""
    client = subprocess.Popen(argv, cwd=ROOT, env=sway.env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ipc = SwayIpc(sway.env["SWAYSOCK"])
    try:
        deadline = time.monotonic() + WAIT_S
        while seen not in str(ipc.tree()):
            if client.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{argv[0]}'s window did not appear")
            time.sleep(0.05)   # bounded: the window maps once the client drew its first frame
        time.sleep(1.0)        # start-up drawing over: the measured windows see the steady state
        yield
    finally:
        ipc.close()
        terminate(client)


def case_client(case: str, sway: Compositor, profile: str) -> AbstractContextManager[None]:
    if case == "redrawing":
        return showing(sway, [sys.executable, "-m", "testbed.redrawing_client", "--redraw", APP_ID], APP_ID)
    if case == "page":
        chromium = shutil.which("chromium") or "chromium"
        return showing(sway, [chromium, *CONTAINER_FLAGS, "--ozone-platform=wayland",
                              f"--user-data-dir={profile}", PAGE], "animating")
    return nullcontext()


def measure(sway: Compositor, window: float, watch: bool) -> dict[str, float]:
    socket = os.path.join(sway.env["XDG_RUNTIME_DIR"], sway.env["WAYLAND_DISPLAY"])
    watcher = SwayDamageWatcher(socket) if watch else None
    try:
        time.sleep(0.3)   # the first (baseline) frame and the set-up are not counted
        frames = watcher.frames if watcher else 0
        changes = watcher.log.seq if watcher else 0
        sway0, own0, began = sway.cpu_s(), time.process_time(), time.monotonic()
        time.sleep(window)   # the measured window: nothing else runs in this process meanwhile
        elapsed = time.monotonic() - began
        return {"sway_cpu": (sway.cpu_s() - sway0) / elapsed, "watcher_cpu": (time.process_time() - own0) / elapsed,
                "frames_s": ((watcher.frames - frames) / elapsed) if watcher else 0.0,
                "changes_s": ((watcher.log.seq - changes) / elapsed) if watcher else 0.0}
    finally:
        if watcher is not None:
            watcher.close()


def report(case: str, runs: dict[bool, list[dict[str, float]]]) -> None:
    med = {watch: {key: statistics.median(r[key] for r in rows) for key in rows[0]} for watch, rows in runs.items()}
    off, on = med[False], med[True]
    ratio = on["sway_cpu"] / off["sway_cpu"] if off["sway_cpu"] else float("nan")
    print(f"{case:10} sway CPU {100 * off['sway_cpu']:5.1f}% without, {100 * on['sway_cpu']:5.1f}% with "
          f"(ratio {ratio:.2f}); watcher CPU {100 * on['watcher_cpu']:4.1f}%; "
          f"frames copied {on['frames_s']:5.1f}/s, changes {on['changes_s']:5.1f}/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--window", type=float, default=3.0, help="seconds measured per run")
    args = parser.parse_args()
    with headless_sway(1280, 800) as sway:
        for case in ("idle", "redrawing", "page"):
            runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
            with tempfile.TemporaryDirectory(prefix="bench-chromium-") as profile, \
                    case_client(case, sway, profile):
                for _ in range(args.rounds):
                    for watch in (False, True):
                        runs[watch].append(measure(sway, args.window, watch))
            report(case, runs)


if __name__ == "__main__":
    main()
