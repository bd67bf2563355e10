#!/usr/bin/env python3
"""Measure what the settle defaults rest on: after an input, when does the screen change, and
how long are the quiet gaps inside one reaction? On a fresh Xvfb (1280x800) with Chromium (no
sidecar needed) and pages served locally: a long static docs-like page, a TodoMVC-like app, a
page that reacts at once (settle-react.html?delay=0) and one with a spinner.

Per page and act, over --rounds repetitions: the first change after the act (how long the quiet
window must be for an immediate reaction to be seen), the largest gap between two changes
within the reaction (a quiet window shorter than this cuts a reaction in two), and the time
of the last change within --window s. Prints medians, 90th percentiles and maxima, in ms.
Usage: .venv/bin/python benchmarks/measure_settle.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from Xlib import X, display as xdisplay
from Xlib.ext import xtest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopd.x11.damage import DamageWatcher  # noqa: E402
from testbed.children import CHROMIUM_FLAGS  # noqa: E402
from testbed.pages import PageServer  # noqa: E402
from testbed.processes import terminate  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402


class Input:
    def __init__(self, name: str) -> None:
        self.dpy = xdisplay.Display(name)

    def click(self, x: int, y: int) -> None:
        xtest.fake_input(self.dpy, X.MotionNotify, x=x, y=y)
        xtest.fake_input(self.dpy, X.ButtonPress, 1)
        xtest.fake_input(self.dpy, X.ButtonRelease, 1)
        self.dpy.sync()

    def wheel(self, x: int, y: int, clicks: int) -> None:
        xtest.fake_input(self.dpy, X.MotionNotify, x=x, y=y)
        for _ in range(clicks):
            xtest.fake_input(self.dpy, X.ButtonPress, 5)
            xtest.fake_input(self.dpy, X.ButtonRelease, 5)
        self.dpy.sync()

    def key(self, keysym: int) -> None:
        code = self.dpy.keysym_to_keycode(keysym)
        xtest.fake_input(self.dpy, X.KeyPress, code)
        xtest.fake_input(self.dpy, X.KeyRelease, code)
        self.dpy.sync()


def quiet_for(watcher: DamageWatcher, seconds: float, limit: float) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        seq = watcher.log.seq
        time.sleep(seconds)
        if watcher.log.seq == seq:
            return True
    return False


def observe(watcher: DamageWatcher, act, window: float) -> tuple[float | None, float, float | None]:
    """(first change, largest gap inside the reaction, last change) in s after the act."""
    seq = watcher.log.seq
    act()
    start = time.monotonic()
    time.sleep(window)
    times = [c.at - start for c in watcher.log.after(seq)]
    if not times:
        return None, 0.0, None
    gaps = [b - a for a, b in zip(times, times[1:])]
    return times[0], max(gaps, default=0.0), times[-1]


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:6.1f}  p90 {p90 * 1000:6.1f}  max {ordered[-1] * 1000:6.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--window", type=float, default=1.0)
    args = parser.parse_args()
    logs = tempfile.mkdtemp(prefix="measure-settle-")
    xvfb = start_xvfb(1280, 800, log_path=os.path.join(logs, "xvfb.log"))
    pages = PageServer()
    watcher = DamageWatcher(xvfb.display)
    user = Input(xvfb.display)
    from Xlib import XK
    cases = [
        ("docs: click on prose", "settle-docs.html", lambda: user.click(700, 400)),
        ("docs: wheel 3 clicks", "settle-docs.html", lambda: user.wheel(700, 400, 3)),
        ("todo: toggle checkbox", "settle-todo.html", lambda: user.click(382, 248)),
        ("react: colour at once", "settle-react.html?delay=0", lambda: user.click(640, 400)),
        ("spinner: click", "settle-spinner.html", lambda: user.click(640, 600)),
    ]
    print(f"after each act, {args.rounds} rounds, ms after the act's input was synced")
    try:
        for name, page, act in cases:
            profile = tempfile.TemporaryDirectory(prefix="measure-settle-chromium-")
            chromium = subprocess.Popen(
                ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile.name}", "--window-position=0,0",
                 "--window-size=1280,800", "--kiosk", pages.url(page)],
                env={**os.environ, "DISPLAY": xvfb.display}, stdout=subprocess.DEVNULL,
                stderr=open(os.path.join(logs, "chromium.log"), "ab"), start_new_session=True)
            try:
                quiet_for(watcher, 1.0, 15)
                first, gaps, last, none = [], [], [], 0
                for _ in range(args.rounds):
                    user.key(XK.XK_F5)
                    quiet_for(watcher, 0.4, 4)
                    f, g, l = observe(watcher, act, args.window)
                    if f is None:
                        none += 1
                        continue
                    first.append(f), gaps.append(g), last.append(l)
            finally:
                terminate(chromium, group=True)
                profile.cleanup()
            print(f"{name:<24} first change: {summary(first)}")
            print(f"{'':<24} largest gap:  {summary(gaps)}")
            print(f"{'':<24} last change:  {summary(last)}   (no change: {none} of {args.rounds})")
    finally:
        watcher.close()
        pages.stop()
        xvfb.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
