#!/usr/bin/env python3
"""Benchmark a step that settles on evidence against the same step with the old fixed 100 ms
pause and against an xdotool + ImageMagick `import` loop, all in one run.

A fresh Xvfb (1280x800), the real sidecar (Chromium) and desktopd. Static page: the docs-like
page (testbed/pages/settle-docs.html), clicked on its prose (nothing reacts). Printed: medians
of steps/s and ratios against the same-run baselines:
  * Anthropic endpoint: left_click with its screenshot (default settle) vs settle=settle_quiet=0.1
    (a fixed 100 ms pause: the old default);
  * OpenAI endpoint: click with its screenshot, the same two ways;
  * DesktopEnv.step with a 1280x800 JPEG observation, without and with /layout, default settle
    vs settle_s=settle_quiet_s=0.1;
  * xdotool click + `import -window root jpeg:-` subprocesses (no settle at all): the peers' way.
Reacting pages (settle-react.html?delay=N): per delay, the Anthropic click's median time and how
many of its screenshots show the reaction, default settle vs fixed 100 ms.
Usage: .venv/bin/python scripts/bench_settle.py [--steps 30]
"""

from __future__ import annotations

import argparse
import base64
import io
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

FIXED = {"settle": 0.1, "settle_quiet": 0.1}      # the old fixed pause, in the new settings
PROSE = (700, 500)


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


def anthropic_click(desktop: Desktop, point=PROSE, **settle) -> dict:
    return desktop.anthropic({"action": "left_click", "coordinate": list(point)}, **settle)


def openai_click(desktop: Desktop, **settle) -> dict:
    return desktop.openai({"type": "click", "x": PROSE[0], "y": PROSE[1], "button": "left"}, **settle)


def xdotool_step(display: str) -> None:
    env = {**os.environ, "DISPLAY": display}
    subprocess.run(["xdotool", "mousemove", str(PROSE[0]), str(PROSE[1]), "click", "1"], env=env,
                   check=True, timeout=30)
    shot = subprocess.run(["import", "-window", "root", "jpeg:-"], env=env, check=True, timeout=30,
                          capture_output=True).stdout
    assert shot[:2] == b"\xff\xd8"


def env_rates(desktop_url: str, sidecar_url: str, url: str, steps: int, layout: bool) -> list[float]:
    """DesktopEnv.step with the default settle, then with the old fixed 100 ms, interleaved."""
    envs = [DesktopEnv(desktop_url, sidecar_url=sidecar_url, observe_layout=layout, screenshot_format="jpeg",
                       screenshot_size=(1280, 800), **settle) for settle in ({}, {"settle_s": 0.1, "settle_quiet_s": 0.1})]
    try:
        envs[0].reset(options={"urls": [url]})
        for env in envs[1:]:
            env.reset(options={"urls": [url]})
        envs[0].desktop.step(settle=5.0, settle_quiet=0.5)
        return interleaved([lambda i, e=env: e.step({"type": "click", "x": PROSE[0] + i % 5, "y": PROSE[1]})
                            for env in envs], steps)
    finally:
        for env in envs:
            env.close()


def round_trips(desktop: Desktop, steps: int) -> list[float]:
    """The kit's step in one POST /api/v1/step against the same step in the calls it used to make
    (act, settle, screenshot, windows, pointer), both settling on desktopd."""
    options = ObserveOptions(screenshot_format="jpeg", screenshot_size=(1280, 800))
    observer = Observer(desktop, options)
    before = observer.observe()
    action = {"type": "click", "x": PROSE[0], "y": PROSE[1]}

    def one(i: int) -> None:
        observer.step(action, before)

    def separate(i: int) -> None:
        run_action(desktop, action, observer.scaling)
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
            peer = timed(lambda i: xdotool_step(xvfb.display), args.steps)
            for name, fn in (("anthropic click + screenshot", anthropic_click), ("openai click + screenshot", openai_click)):
                settled, fixed = interleaved([lambda i, f=fn: f(desktop), lambda i, f=fn: f(desktop, **FIXED)], args.steps)
                rows.append((name, settled, fixed))
            one, separate = round_trips(desktop, args.steps)
            reactions = [(delay, reacting(desktop, pages, delay, args.rounds),
                          reacting(desktop, pages, delay, args.rounds, **FIXED)) for delay in (0, 20, 50, 150)]
            reactions_long = [(delay, reacting(desktop, pages, delay, args.rounds, settle=1.0, settle_quiet=0.2))
                              for delay in (150,)]
        for layout in (False, True):
            settled, fixed = env_rates(desktop_url, sidecar_url, static, args.steps, layout)
            rows.append((f"DesktopEnv.step jpeg{' + /layout' if layout else ''}", settled, fixed))
    finally:
        for proc in reversed(procs):
            terminate(proc, group=proc.args[2] == "sidecar")
        xvfb.stop()
        pages.stop()
        log.close()
    print(f"static page (docs-like, a click on prose), 1280x800, {args.steps} steps, medians; logs in {logs}")
    print(f"{'step':<34}{'settled/s':>10}{'fixed 100 ms/s':>16}{'x fixed':>9}{'x xdotool+import':>18}")
    for name, settled, fixed in rows:
        print(f"{name:<34}{1 / settled:>10.1f}{1 / fixed:>16.1f}{fixed / settled:>9.2f}{peer / settled:>18.2f}")
    print(f"{'xdotool + import (no settle)':<34}{1 / peer:>10.1f}")
    print(f"kit step, 1280x800 JPEG: one POST /api/v1/step {1 / one:.1f}/s, the five calls it replaces "
          f"{1 / separate:.1f}/s (x{separate / one:.2f})")
    print(f"reacting pages (a click turns the page red after N ms), {args.rounds} clicks each:")
    print(f"{'delay':>6}{'settled ms':>12}{'red':>6}{'fixed 100 ms':>14}{'red':>6}")
    for delay, (s_time, s_seen), (f_time, f_seen) in reactions:
        print(f"{delay:>6}{s_time * 1000:>12.1f}{s_seen:>6}{f_time * 1000:>14.1f}{f_seen:>6}")
    for delay, (l_time, l_seen) in reactions_long:
        print(f"{delay:>6} with settle_quiet=0.2: {l_time * 1000:.1f} ms, red {l_seen} of {args.rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
