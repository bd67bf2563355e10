#!/usr/bin/env python3
"""Sway beside X11: the desktop image with DESKTOPD_BACKEND=sway and =x11, in the same run.

    .venv/bin/python benchmarks/bench_backends.py [--tag latest] [--rounds 15] [--starts 3]

Per backend, over desktopd's HTTP API on 127.0.0.1 (the path a client takes):
  * start:   `docker run` -> /health says ok (polled every 50 ms), median of --starts runs
  * memory:  the idle container's memory (docker stats) once healthy, median of those runs
  * screenshot PNG / JPEG of the whole 1920x1080 screen, a tap (move + click), typing 11 characters:
    medians of --rounds requests, the two backends measured round-robin so load from other
    processes hits both alike.
Prints medians and the ratio sway / x11 (below 1: Sway is faster or smaller). Every loop is
bounded; the containers it started are removed."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_images import docker, host_port, status_ok, to_mib

BACKENDS = ("x11", "sway")
START_TIMEOUT_S = 180.0
POLL_S = 0.05
TEXT = "hello world"   # 11 characters


def start(image: str, backend: str) -> tuple[str, float]:
    """Run the image on ``backend``; returns the container's name and seconds until healthy."""
    name = f"desktopd-bench-{backend}-{time.time_ns() % 10**9}"
    began = time.monotonic()
    docker("run", "-d", "--name", name, "--shm-size", "1g", "-e", "DESKTOPD_INSECURE=1",
           "-e", "VNC_PASSWORD=benchpw1", "-e", f"DESKTOPD_BACKEND={backend}",
           "-e", "WIDTH=1920", "-e", "HEIGHT=1080", "-p", "127.0.0.1::8080", image)
    url = f"http://127.0.0.1:{host_port(name, 8080)}/health"
    while not status_ok(url):
        if time.monotonic() - began > START_TIMEOUT_S:
            logs = docker("logs", "--tail", "40", name)
            remove(name)
            raise RuntimeError(f"{backend}: not healthy after {START_TIMEOUT_S:g} s:\n{logs}")
        time.sleep(POLL_S)
    return name, time.monotonic() - began


def remove(name: str) -> None:
    subprocess.run(["docker", "rm", "-f", "-v", name], check=False, capture_output=True, timeout=120)


def memory_mib(name: str) -> float:
    return to_mib(docker("stats", "--no-stream", "--format", "{{.MemUsage}}", name).split("/")[0].strip())


class Client:
    """One kept-alive HTTP connection to a container's desktopd."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, body: dict | None = None) -> bytes:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
        return data


def actions(client: Client) -> dict[str, Callable[[], object]]:
    return {
        "screenshot PNG 1080p": lambda: client.request("GET", "/api/v1/screenshot?format=png"),
        "screenshot JPEG 1080p": lambda: client.request("GET", "/api/v1/screenshot?format=jpeg"),
        "tap": lambda: client.request("POST", "/api/v1/tablet", {"action": "tap", "x": 960, "y": 540}),
        "type 11 characters": lambda: client.request("POST", "/api/v1/keyboard", {"text": TEXT}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tag", default="latest")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    image = f"desktopd/desktop:{args.tag}"

    figures: dict[str, dict[str, float]] = {b: {} for b in BACKENDS}
    starts: dict[str, list[float]] = {b: [] for b in BACKENDS}
    memory: dict[str, list[float]] = {b: [] for b in BACKENDS}
    for _ in range(args.starts):
        for backend in BACKENDS:       # alternated: both see the same machine
            name, seconds = start(image, backend)
            try:
                starts[backend].append(seconds)
                time.sleep(2)          # start-up work settles before memory is read
                memory[backend].append(memory_mib(name))
            finally:
                remove(name)
    for backend in BACKENDS:
        figures[backend]["start to healthy (s)"] = statistics.median(starts[backend])
        figures[backend]["memory (MiB)"] = statistics.median(memory[backend])

    names = {backend: start(image, backend)[0] for backend in BACKENDS}
    try:
        clients = {b: Client(host_port(names[b], 8080)) for b in BACKENDS}
        per_backend = {b: actions(clients[b]) for b in BACKENDS}
        for label in per_backend["x11"]:
            samples: dict[str, list[float]] = {b: [] for b in BACKENDS}
            for backend in BACKENDS:   # warm-up
                per_backend[backend][label]()
            for _ in range(args.rounds):
                for backend in BACKENDS:
                    began = time.perf_counter()
                    per_backend[backend][label]()
                    samples[backend].append(time.perf_counter() - began)
            for backend in BACKENDS:
                figures[backend][f"{label} (ms)"] = statistics.median(samples[backend]) * 1000
    finally:
        for name in names.values():
            remove(name)

    print(f"{'figure':28} {'x11':>10} {'sway':>10} {'sway/x11':>9}")
    for label, x11 in figures["x11"].items():
        sway = figures["sway"][label]
        print(f"{label:28} {x11:10.1f} {sway:10.1f} {sway / x11:9.2f}")


if __name__ == "__main__":
    main()
