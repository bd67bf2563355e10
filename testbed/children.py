"""Child processes for tests and benchmarks: ``python -m`` modules of this checkout (the
sidecar, desktopd) started from the repository, ready when they print the line that says so
(never after a sleep), their pipes drained, stopped by PID."""

from __future__ import annotations

import asyncio
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from .processes import terminate

ROOT = Path(__file__).resolve().parents[1]
# What Chromium needs to run in containers and on shared CI machines (no sandbox, no GPU, no
# background traffic); the caller adds a fresh profile.
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-default-browser-check", "--password-store=basic", "--site-per-process")


def read_line_matching(stream: Any, pattern: re.Pattern[str], process: subprocess.Popen,
                        timeout: float, what: str) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    buffer = b""
    seen: list[str] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"{what} not ready within {timeout} s: {seen[-5:]}")
        ready, _, _ = select.select([stream], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            raise RuntimeError(f"{what} exited ({process.wait()}) before it was ready: {seen[-5:]}")
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            seen.append(line)
            match = pattern.search(line)
            if match:
                return match


def drain(stream: Any) -> None:
    """Keep reading a child's pipe so it never blocks on a full one; close it at its end."""
    def run() -> None:
        try:
            while os.read(stream.fileno(), 65536):
                pass
        except (OSError, ValueError):
            pass
        finally:
            stream.close()
    threading.Thread(target=run, daemon=True, name="drain-child-pipe").start()


def stop(process: subprocess.Popen, group: bool = False) -> None:
    try:
        terminate(process, group=group)
    finally:
        if process.stderr is not None:
            _wait_closed(process.stderr)


def stop_process_group(process: subprocess.Popen) -> None:
    """Stop a child started with start_new_session=True and everything it spawned."""
    terminate(process, group=True)


def _wait_closed(stream: Any) -> None:
    """The drain thread closes the pipe at EOF (the child is gone): wait for that, bounded."""
    deadline = time.monotonic() + 5
    while not stream.closed and time.monotonic() < deadline:
        time.sleep(0.01)
    if not stream.closed:
        stream.close()


async def start_module(args: Sequence[str], waits: Sequence[tuple[str, float, str]], *,
                       tree: Path = ROOT) -> tuple[subprocess.Popen, list[re.Match[str]]]:
    """``python -m ARGS`` from the repository (or another checkout, ``tree``), ready once its
    stderr has shown each line of ``waits`` (pattern, timeout s, what to call it in an error), in
    order."""
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=str(tree), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    matches = []
    try:
        for pattern, timeout, name in waits:
            matches.append(await asyncio.to_thread(
                read_line_matching, process.stderr, re.compile(pattern), process, timeout, name))
    except BaseException:
        stop(process)
        raise
    drain(process.stderr)
    return process, matches


@dataclass
class Sidecar:
    process: subprocess.Popen
    url: str

    async def get(self, session: aiohttp.ClientSession, path: str, **query: str) -> tuple[int, Any]:
        async with session.get(self.url + path, params=query) as response:
            return response.status, await response.json()

    async def title_once(self, session: aiohttp.ClientSession, want: str, **query: str) -> str:
        """The document title (the name of a tab's RootWebArea node) once it is ``want``, or the
        last one seen; the test pages set it on every click. Read through /layout, which must
        notice the change. Bounded."""
        title = ""
        for _ in range(100):
            status, body = await self.get(session, "/layout", roles="RootWebArea", **query)
            assert status == 200, body
            title = body["tabs"][0]["layout"]["nodes"][0]["name"]["value"]
            if title == want:
                break
            await asyncio.sleep(0.05)
        return title

    async def close(self) -> None:
        stop(self.process)


async def start_sidecar(display: str, *urls: str, extra: Sequence[str] = (), tree: Path = ROOT) -> Sidecar:
    """``python -m sidecar URL... --display :N --port 0``, ready once Chromium is up too."""
    process, (listening, _ready) = await start_module(
        ["sidecar", *urls, "--display", display, "--host", "127.0.0.1", "--port", "0", *extra],
        [(r"sidecar listening on (http://[\d.]+:\d+)", 40, "sidecar"),
         (r"Chromium ready", 40, "sidecar's Chromium")], tree=tree)
    return Sidecar(process, listening.group(1))
