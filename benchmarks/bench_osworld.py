#!/usr/bin/env python3
"""OSWorld's client on a desktopd container: container start to first observation (DesktopEnv's
start_emulator: `docker run` until OSWorld's /screenshot answers), revert (desktopd's reset, as
the provider does it) against restarting the container (what OSWorld's Docker provider does on
revert: a new VM), and the median of each PythonController call against desktopd's own
GET /api/v1/screenshot PNG, in the same run.
Usage: .venv/bin/python benchmarks/bench_osworld.py [--image desktopd/chromium:latest] [--runs 15]"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import docker
import requests
from desktop_env.controllers.python import PythonController

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktopd_osworld import DesktopdProvider
from desktopd_osworld.provider import osworld_desktops, wait_for_screenshot


def median_ms(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--image", default="desktopd/chromium:latest")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()

    starts = []
    for _ in range(args.starts):
        provider = DesktopdProvider(desktops=osworld_desktops(args.image))
        started = time.perf_counter()
        provider.start_emulator(args.image, headless=True)
        starts.append(time.perf_counter() - started)
        provider.stop_emulator(args.image)
    print(f"container start -> first observation: median {statistics.median(starts):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in starts)})")

    provider = DesktopdProvider(desktops=osworld_desktops(args.image))
    provider.start_emulator(args.image, headless=True)
    try:
        host, port = provider.get_ip_address("").split(":")[:2]
        c = PythonController(host, int(port))
        url = provider.osworld_url()
        endpoint = provider.lease.endpoint if provider.lease else None
        assert endpoint is not None
        def desktopd_png() -> bytes:
            return requests.get(endpoint.desktopd_url + "/api/v1/screenshot", headers=endpoint.headers(),
                                timeout=30).content

        median_ms(desktopd_png, args.runs)   # warm-up: the desktop has just started
        baseline = median_ms(desktopd_png, args.runs)
        calls: dict[str, Callable[[], object]] = {
            "get_screenshot": c.get_screenshot,
            "get_accessibility_tree": c.get_accessibility_tree,
            "execute_python_command (pyautogui click)": lambda: c.execute_python_command("pyautogui.click(640, 400)"),
            "execute_action MOVE_TO (pyautogui, 0.5-1 s tween)": lambda: c.execute_action(
                {"action_type": "MOVE_TO", "parameters": {"x": 10, "y": 10}}),
            "run_python_script": lambda: c.run_python_script("print(1)"),
            "run_bash_script": lambda: c.run_bash_script("true"),
            "get_file": lambda: c.get_file("/etc/os-release"),
            "get_vm_screen_size": c.get_vm_screen_size,
            "cursor_position": lambda: requests.get(url + "/cursor_position", timeout=10).json(),
            "get_terminal_output": c.get_terminal_output,
        }
        print(f"baseline desktopd GET /api/v1/screenshot (PNG): median {baseline:.1f} ms")
        for name, call in calls.items():
            ms = median_ms(call, args.runs)
            print(f"{name}: median {ms:.1f} ms ({ms / baseline:.2f}x the baseline)")
        resets = []
        restarts = []
        for _ in range(max(3, args.runs // 5)):
            started = time.perf_counter()
            provider.revert_to_snapshot(args.image, "init_state")
            resets.append(time.perf_counter() - started)
        reset = statistics.median(resets)
        print(f"revert (desktopd reset): median {reset:.2f} s ({', '.join(f'{r:.2f}' for r in resets)})",
              flush=True)
        assert provider.lease is not None
        container = docker.from_env().containers.get(provider.lease.name)
        for _ in range(2):
            started = time.perf_counter()
            container.restart(timeout=10)
            container.reload()   # Docker picks new host ports for a restarted container
            port = container.ports["5000/tcp"][0]["HostPort"]
            wait_for_screenshot(f"http://127.0.0.1:{port}")
            restarts.append(time.perf_counter() - started)
        restart = statistics.median(restarts)
        print(f"container restart until /screenshot: median {restart:.2f} s; ratio to the revert "
              f"{restart / reset:.1f}x")
    finally:
        provider.stop_emulator(args.image)


if __name__ == "__main__":
    main()
