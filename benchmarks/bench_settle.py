#!/usr/bin/env python3
"""Benchmark a step that settles on evidence against the same step with the old fixed 100 ms
pause and against an xdotool + ImageMagick `import` loop, all in one run.

A fresh Xvfb (1280x800), the real sidecar (Chromium) and desktopd. Static page: the docs-like
page (testbed/pages/settle-docs.html), clicked on its prose, in turn at four points far apart
(nothing reacts: clicks at one point within the double-click time would select a word, then a
paragraph, which is a reaction). Printed: medians of steps/s and ratios against the same-run
baselines:
  * Anthropic endpoint: left_click with its screenshot, default settle (X damage and the
    browser's evidence) vs X damage alone (settle_browser=false) vs settle=settle_quiet=0.1
    with settle_browser=false (a fixed 100 ms pause: the old default);
  * OpenAI endpoint: click with its screenshot, the same three ways;
  * DesktopEnv.step with a 1280x800 JPEG observation, without and with /layout, the same three;
  * xdotool click + `import -window root jpeg:-` subprocesses (no settle at all): the peers' way.
Reacting pages (settle-react.html?delay=N): per delay, the Anthropic click's median time and how
many of its screenshots show the reaction, the same three ways.
Usage: .venv/bin/python benchmarks/bench_settle.py [--steps 30]
"""

from __future__ import annotations

import argparse
import base64
import io
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopd_kit import Desktop  # noqa: E402
from desktopd_kit.actions import run_action  # noqa: E402
from desktopd_kit.env import DesktopEnv  # noqa: E402
from desktopd_kit.observe import ObserveOptions, Observer  # noqa: E402
from testbed.pages import PageServer, free_port  # noqa: E402
from testbed.processes import terminate  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402

FIXED = {"settle": 0.1, "settle_quiet": 0.1, "settle_browser": False}   # the old fixed pause
DAMAGE = {"settle_browser": False}                  # X damage alone, default windows
# Prose far apart: one click each, never a double click (which selects a word: a reaction).
POINTS = ((300, 300), (900, 300), (300, 650), (900, 650))
WAYS = ("settled", "damage only", "fixed 100 ms")


_turns = itertools.count()


def click_at(point: tuple[int, int]) -> dict:
    return {"type": "click", "x": point[0], "y": point[1]}


def prose(_i: int) -> tuple[int, int]:
    """The next point, call after call (the ways run in turns: each must click elsewhere)."""
    return POINTS[next(_turns) % len(POINTS)]


def timed(fn, steps: int) -> float:
    """Median seconds of ``fn(i)``."""
    return interleaved([fn], steps)[0]


def interleaved(fns, steps: int) -> list[float]:
    """Median seconds of each ``fn(i)``, run in turns: a slow moment of the shared host falls on
    every way alike."""
    times: list[list[float]] = [[] for _ in fns]
    for i in range(steps):
        for fn, spent in zip(fns, times):
            started = time.perf_counter()
            fn(i)
            spent.append(time.perf_counter() - started)
    return [statistics.median(spent) for spent in times]


def open_page(desktop: Desktop, url: str) -> None:
    tab = next(t for t in desktop.tabs() if t["visible"])
    desktop.navigate(tab["id"], url)
    desktop.step(settle=5.0, settle_quiet=0.5)


def anthropic_click(desktop: Desktop, point: tuple[int, int], **settle) -> dict:
    return desktop.anthropic({"action": "left_click", "coordinate": list(point)}, **settle)


def openai_click(desktop: Desktop, point: tuple[int, int], **settle) -> dict:
    return desktop.openai({"type": "click", "x": point[0], "y": point[1], "button": "left"}, **settle)


def xdotool_step(display: str, point: tuple[int, int]) -> None:
    env = {**os.environ, "DISPLAY": display}
    subprocess.run(["xdotool", "mousemove", str(point[0]), str(point[1]), "click", "1"], env=env,
                   check=True, timeout=30)
    shot = subprocess.run(["import", "-window", "root", "jpeg:-"], env=env, check=True, timeout=30,
                          capture_output=True).stdout
    assert shot[:2] == b"\xff\xd8"


def env_rates(desktop_url: str, sidecar_url: str, url: str, steps: int, layout: bool) -> list[float]:
    """DesktopEnv.step with the default settle, X damage alone and the old fixed 100 ms, interleaved."""
    envs = [DesktopEnv(desktop_url, sidecar_url=sidecar_url, observe_layout=layout, screenshot_format="jpeg",
                       screenshot_size=(1280, 800), **settle)
            for settle in ({}, {"settle_browser": False},
                           {"settle_s": 0.1, "settle_quiet_s": 0.1, "settle_browser": False})]
    try:
        envs[0].reset(options={"urls": [url]})
        for env in envs[1:]:
            env.reset(options={"urls": [url]})
        envs[0].desktop.step(settle=5.0, settle_quiet=0.5)
        return interleaved([lambda i, e=env: e.step(click_at(prose(i)))
                            for env in envs], steps)
    finally:
        for env in envs:
            env.close()


def round_trips(desktop: Desktop, steps: int) -> list[float]:
    """The kit's step in one POST /api/v1/step against the same step in the calls it used to make
    (act, settle, screenshot, windows, pointer), both settling on desktopd's X damage alone (a
    settle of its own has no act: the browser's evidence needs the click in the same request)."""
    options = ObserveOptions(screenshot_format="jpeg", screenshot_size=(1280, 800), settle_browser=False)
    observer = Observer(desktop, options)
    before = observer.observe()

    def click(i: int) -> dict:
        return click_at(prose(i))

    def one(i: int) -> None:
        observer.step(click(i), before)

    def separate(i: int) -> None:
        run_action(desktop, click(i), observer.scaling)
        desktop.step(pointer=False, settle=options.settle_s, settle_quiet=options.settle_quiet_s)
        desktop.screenshot("jpeg", max_width=1280, max_height=800)
        desktop.windows()
        desktop.pointer_position()
    return interleaved([one, separate], steps)


def reacted(answer: dict) -> bool:
    image = next(b for b in answer["content"] if b["type"] == "image")
    pixel = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))).convert("RGB").getpixel((640, 600))
    return pixel == (255, 0, 0)


def reacting(desktop: Desktop, pages: PageServer, delay: int, rounds: int, **settle) -> tuple[float, int]:
    times, seen = [], 0
    for _ in range(rounds):
        open_page(desktop, pages.url(f"settle-react.html?delay={delay}"))
        started = time.perf_counter()
        answer = anthropic_click(desktop, (640, 600), **settle)
        times.append(time.perf_counter() - started)
        seen += reacted(answer)
    return statistics.median(times), seen


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5, help="clicks per reacting page")
    args = parser.parse_args()
    logs = tempfile.mkdtemp(prefix="bench-settle-")
    log = open(os.path.join(logs, "processes.log"), "ab")
    pages = PageServer()
    xvfb = start_xvfb(1280, 800, log_path=os.path.join(logs, "xvfb.log"))
    procs: list[subprocess.Popen] = []
    static = pages.url("settle-docs.html")
    try:
        sidecar_url = f"http://127.0.0.1:{free_port()}"
        desktop_url = f"http://127.0.0.1:{free_port()}"
        procs.append(subprocess.Popen([sys.executable, "-m", "sidecar", static, "--display", xvfb.display,
                                       "--port", sidecar_url.rsplit(":", 1)[1]], cwd=ROOT, stdout=log, stderr=log,
                                      start_new_session=True))
        procs.append(subprocess.Popen([sys.executable, "-m", "desktopd", "--display", xvfb.display,
                                       "--port", desktop_url.rsplit(":", 1)[1]], cwd=ROOT, stdout=log, stderr=log,
                                      env={**os.environ, "DESKTOPD_SIDECAR_URL": sidecar_url}))
        rows: list[tuple[str, float, float]] = []
        with Desktop(desktop_url, sidecar_url=sidecar_url) as desktop:
            desktop.wait_until_healthy(timeout=90)
            open_page(desktop, static)
            anthropic_click(desktop, prose(0))     # the page's settle tracker is in from here on
            peer = timed(lambda i: xdotool_step(xvfb.display, prose(i)), args.steps)
            for name, fn in (("anthropic click + screenshot", anthropic_click), ("openai click + screenshot", openai_click)):
                rows.append((name, *interleaved([lambda i, f=fn, w=way: f(desktop, prose(i), **w)
                                                 for way in ({}, DAMAGE, FIXED)], args.steps)))
            one, separate = round_trips(desktop, args.steps)
            reactions = [(delay, *(reacting(desktop, pages, delay, args.rounds, **way) for way in ({}, DAMAGE, FIXED)))
                         for delay in (0, 20, 50, 150)]
        for layout in (False, True):
            rows.append((f"DesktopEnv.step jpeg{' + /layout' if layout else ''}",
                         *env_rates(desktop_url, sidecar_url, static, args.steps, layout)))
    finally:
        for proc in reversed(procs):
            terminate(proc, group=proc.args[2] == "sidecar")
        xvfb.stop()
        pages.stop()
        log.close()
    print(f"static page (docs-like, a click on prose), 1280x800, {args.steps} steps, medians; logs in {logs}")
    print(f"{'step':<34}{'settled/s':>10}{'damage only/s':>15}{'fixed 100 ms/s':>16}{'x damage':>10}{'x fixed':>9}"
          f"{'x xdotool+import':>18}")
    for name, settled, damage, fixed in rows:
        print(f"{name:<34}{1 / settled:>10.1f}{1 / damage:>15.1f}{1 / fixed:>16.1f}{damage / settled:>10.2f}"
              f"{fixed / settled:>9.2f}{peer / settled:>18.2f}")
    print(f"{'xdotool + import (no settle)':<34}{1 / peer:>10.1f}")
    print(f"kit step, 1280x800 JPEG: one POST /api/v1/step {1 / one:.1f}/s, the five calls it replaces "
          f"{1 / separate:.1f}/s (x{separate / one:.2f})")
    print(f"reacting pages (a click turns the page red after N ms), {args.rounds} clicks each:")
    print(f"{'delay':>6}" + "".join(f"{way + ' ms':>16}{'red':>5}" for way in WAYS))
    for delay, *ways in reactions:
        print(f"{delay:>6}" + "".join(f"{spent * 1000:>16.1f}{seen:>5}" for spent, seen in ways))
    return 0


if __name__ == "__main__":
    sys.exit(main())
