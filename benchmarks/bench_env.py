#!/usr/bin/env python3
"""Benchmark the harness kit's environment step against the peers' ways, in one run.

A fresh Xvfb (1280x800) with the real sidecar (Chromium on a page of buttons) and desktopd;
one step = act (a click) then observe (JPEG screenshot + the sidecar's /layout), the loop an
agent runs. Printed: steps/s and ratios against the kit's own number measured in the same run.
  * kit: DesktopEnv.step (desktopd click; screenshot, /layout, windows, pointer over HTTP);
  * xdotool+import: the E2B SDK's way, a subprocess per action (`xdotool mousemove X Y click 1`)
    and per screenshot (ImageMagick `import -window root jpeg:-`), plus the same GET /layout;
  * fixed 2 s settle: the reference tool sleeps 2 s after each action (a few steps only);
  * recorder: Recorder.step (observe, act, write the image/layout/line) against the same
    observe + act without writing: the record's cost per step.
Usage: .venv/bin/python benchmarks/bench_env.py [--steps 40]
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopd_kit import Desktop  # noqa: E402
from desktopd_kit.env import DesktopEnv  # noqa: E402
from desktopd_kit.observe import ObserveOptions, Observer  # noqa: E402
from desktopd_kit.records import Recorder  # noqa: E402

PAGE = "data:text/html," + urllib.parse.quote(
    "<title>bench</title>" + "".join(f"<button style='margin:6px'>Button {i}</button>" for i in range(60)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_xvfb(log) -> tuple[subprocess.Popen, str]:
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24",
                             "-nolisten", "tcp", "+extension", "XTEST"], pass_fds=(write_fd,),
                            stdout=log, stderr=log)
    os.close(write_fd)
    ready, _, _ = select.select([read_fd], [], [], 20)
    if not ready:
        raise SystemExit("Xvfb did not start")
    display = ":" + os.read(read_fd, 64).decode().strip()
    os.close(read_fd)
    return proc, display


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def rate(seconds: list[float]) -> float:
    return 1.0 / statistics.median(seconds)


def bench_kit(desktop_url: str, sidecar_url: str, steps: int) -> float:
    env = DesktopEnv(desktop_url, sidecar_url=sidecar_url, observe_layout=True, screenshot_format="jpeg",
                     settle_s=0)
    try:
        env.reset(options={"urls": [PAGE]})
        times = []
        for i in range(steps):
            started = time.perf_counter()
            env.step({"type": "click", "x": 400 + i % 5, "y": 300})
            times.append(time.perf_counter() - started)
        return rate(times)
    finally:
        env.close()


def xdotool_step(display: str, sidecar_url: str, session: requests.Session, x: int, y: int) -> None:
    env = {**os.environ, "DISPLAY": display}
    subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True, timeout=30)
    shot = subprocess.run(["import", "-window", "root", "jpeg:-"], env=env, check=True, timeout=30,
                          capture_output=True).stdout
    assert shot[:2] == b"\xff\xd8"
    session.get(sidecar_url + "/layout", params={"interesting": "true"}, timeout=30).raise_for_status()


def bench_xdotool(display: str, sidecar_url: str, steps: int) -> float:
    with requests.Session() as session:
        times = []
        for i in range(steps):
            started = time.perf_counter()
            xdotool_step(display, sidecar_url, session, 400 + i % 5, 300)
            times.append(time.perf_counter() - started)
    return rate(times)


def bench_fixed_settle(display: str, sidecar_url: str, steps: int) -> float:
    with requests.Session() as session:
        times = []
        for i in range(steps):
            started = time.perf_counter()
            env = {**os.environ, "DISPLAY": display}
            subprocess.run(["xdotool", "mousemove", "400", "300", "click", "1"], env=env, check=True, timeout=30)
            time.sleep(2.0)   # the reference tool's settle after every action
            subprocess.run(["import", "-window", "root", "jpeg:-"], env=env, check=True, timeout=30,
                           capture_output=True)
            session.get(sidecar_url + "/layout", params={"interesting": "true"}, timeout=30).raise_for_status()
            times.append(time.perf_counter() - started)
    return rate(times)


def bench_recorder(desktop_url: str, sidecar_url: str, steps: int, root: str) -> tuple[float, float]:
    options = ObserveOptions(screenshot_format="jpeg", observe_layout=True, settle_s=0)
    with Desktop(desktop_url, sidecar_url=sidecar_url) as desktop:
        observer = Observer(desktop, options)
        bare, recorded = [], []
        with Recorder(desktop, root, options=options) as rec:
            for i in range(steps):   # interleaved: a slow moment of the host falls on both
                action = {"type": "click", "x": 400 + i % 5, "y": 300}
                started = time.perf_counter()
                observer.act(action, observer.observe())
                bare.append(time.perf_counter() - started)
                started = time.perf_counter()
                rec.step(action)
                recorded.append(time.perf_counter() - started)
    return statistics.median(bare), statistics.median(recorded)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--settle-steps", type=int, default=3)
    args = parser.parse_args()
    logs = tempfile.mkdtemp(prefix="bench-env-")
    log = open(os.path.join(logs, "processes.log"), "ab")
    procs: list[subprocess.Popen] = []
    try:
        xvfb, display = start_xvfb(log)
        procs.append(xvfb)
        sidecar_port, desktop_port = free_port(), free_port()
        sidecar_url, desktop_url = f"http://127.0.0.1:{sidecar_port}", f"http://127.0.0.1:{desktop_port}"
        procs.append(subprocess.Popen([sys.executable, "-m", "sidecar", PAGE, "--display", display,
                                       "--port", str(sidecar_port)], cwd=ROOT, stdout=log, stderr=log))
        procs.append(subprocess.Popen([sys.executable, "-m", "desktopd", "--display", display,
                                       "--port", str(desktop_port)], cwd=ROOT, stdout=log, stderr=log,
                                      env={**os.environ, "DESKTOPD_SIDECAR_URL": sidecar_url}))
        with Desktop(desktop_url, sidecar_url=sidecar_url) as desktop:
            desktop.wait_until_healthy(timeout=90)
        kit = bench_kit(desktop_url, sidecar_url, args.steps)
        peer = bench_xdotool(display, sidecar_url, args.steps)
        settle = bench_fixed_settle(display, sidecar_url, args.settle_steps)
        bare, recorded = bench_recorder(desktop_url, sidecar_url, args.steps, os.path.join(logs, "episodes"))
    finally:
        for proc in reversed(procs):
            stop(proc)
        log.close()
    print(f"one step = click, then JPEG screenshot + /layout (1280x800, {args.steps} steps; median)")
    print(f"{'way':<28}{'steps/s':>10}{'kit is x faster':>18}")
    for name, value in (("kit DesktopEnv.step", kit), ("xdotool + import (E2B way)", peer),
                        ("fixed 2 s settle (ref.)", settle)):
        print(f"{name:<28}{value:>10.2f}{kit / value:>18.1f}")
    print(f"recorder: {bare * 1000:.1f} ms a step bare, {recorded * 1000:.1f} ms recorded "
          f"(+{(recorded - bare) * 1000:.1f} ms, x{recorded / bare:.2f}); logs in {logs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
