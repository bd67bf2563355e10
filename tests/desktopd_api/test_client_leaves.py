"""Work ends with its client (a real desktopd on each backend, conftest.py's ``live``): a command whose client hung up is
killed with its process group, a paced drag and paced typing stop at the next event. And the
concurrency limit answers 429 instead of queueing without bound."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aiohttp import web

from httpapi.lifetime import Limits, lifetime_middleware
from httpapi.middlewares import error_middleware
from testbed.processes import alive
from testbed.recorder import Recorder

from .conftest import LiveDesktop


def send_and_hang_up(url: str, path: str, body: dict, under_way: Callable[[], bool]) -> None:
    """POST ``body`` with a raw socket and close the connection, unanswered, once ``under_way()``
    says the work has started (a client leaving before that is never served at all)."""
    parts = urlsplit(url)
    data = json.dumps(body).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        assert wait_until(under_way), f"{path} did not start"


def wait_until(predicate, timeout: float = 15.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def test_a_command_whose_client_left_is_killed_with_its_group(desktopd, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The shell and a background child of its own: both must go.
    command = f"sleep 300 & echo $! > {pids}; echo $$ >> {pids}; wait"
    send_and_hang_up(desktopd.url, "/api/v1/execute", {"command": command, "timeout": 600},
                     under_way=lambda: pids.exists() and len(pids.read_text().split()) == 2)
    child, shell = (int(pid) for pid in pids.read_text().split())
    assert wait_until(lambda: not alive(child) and not alive(shell)), "".join(desktopd.log[-20:])
    assert wait_until(lambda: cancelled(desktopd, "POST /api/v1/execute")), "".join(desktopd.log[-20:])


def cancelled(desktopd, route: str) -> bool:
    """desktopd logged that the client of ``route`` left and its work was cancelled."""
    return any(f"client of {route} left: its work was cancelled" in line for line in desktopd.log)


def pointer(display: str) -> tuple[int, int]:
    """Where the X server has the pointer, asked with xdotool (not through desktopd)."""
    out = subprocess.run(["xdotool", "getmouselocation", "--shell"], env={**os.environ, "DISPLAY": display},
                         capture_output=True, text=True, timeout=10, check=True).stdout
    values = dict(line.split("=", 1) for line in out.split())
    return int(values["X"]), int(values["Y"])


class DraggedPointer:
    """Where the pointer is, seen by a client: Wayland lets no client ask the compositor, so on
    Sway the recorder window (at (100, 100), 400x300) reports the drag passing over it."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.last: tuple[int, int] | None = None

    def __call__(self) -> tuple[int, int]:
        while not self.recorder.events.empty():
            event = self.recorder.events.get_nowait()
            if event.get("ev") in ("drag", "motion"):
                self.last = (event["x"], event["y"])
        return self.last or (0, 0)


def test_a_slow_drag_stops_when_its_client_leaves(desktopd, live: LiveDesktop, recorder: Recorder) -> None:
    seen: Callable[[], tuple[int, int]] = (lambda: pointer(live.display)) if live.backend == "x11" \
        else DraggedPointer(recorder)
    assert desktopd.request("POST", "/api/v1/tablet", json={"action": "move", "x": 110, "y": 110}).status_code == 200
    # 20 s from (110,110) to (1010,740): about 45 px a second along x, over the recorder at first.
    send_and_hang_up(desktopd.url, "/api/v1/tablet",
                     {"action": "drag", "path": [[110, 110], [1010, 740]], "duration_ms": 20000},
                     under_way=lambda: seen()[0] > 120)
    # desktopd serves the whole module: wait for this drag's own line, not an earlier request's.
    assert wait_until(lambda: cancelled(desktopd, "POST /api/v1/tablet")), "".join(desktopd.log[-20:])
    stopped = seen()
    assert 110 < stopped[0] < 400, stopped   # it moved, and stopped early
    # A drag still running would move the pointer ~22 px in this time; it holds still.
    time.sleep(0.5)
    assert seen() == stopped
    # The button the drag pressed was released (the recorder-free check: a new click works).
    assert desktopd.request("POST", "/api/v1/tablet", json={"action": "tap", "x": 20, "y": 20}).status_code == 200


async def test_the_limits_answer_429_at_once_and_free_their_slots(aiohttp_client) -> None:
    release = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        await release.wait()
        return web.json_response({"ok": True})

    app = web.Application(middlewares=[error_middleware, lifetime_middleware(Limits(total=3, per_route={"GET /slow": 2}))])
    app.router.add_get("/slow", slow)
    app.router.add_get("/other", slow)
    async def health(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    app.router.add_get("/health", health)
    client = await aiohttp_client(app)
    first = [asyncio.ensure_future(client.get("/slow")) for _ in range(2)]
    await asyncio.sleep(0.2)
    refused = await client.get("/slow")
    assert refused.status == 429 and refused.headers["Retry-After"] == "1"
    assert "GET /slow" in (await refused.json())["detail"]
    other = asyncio.ensure_future(client.get("/other"))
    await asyncio.sleep(0.2)
    refused_total = await client.get("/other")
    assert refused_total.status == 429
    assert (await client.get("/health")).status == 200   # probes are never refused for load
    release.set()
    assert [r.status for r in await asyncio.gather(*first, other)] == [200, 200, 200]
    assert (await client.get("/slow")).status == 200
