"""Real processes for the layout tests, on testbed/ (pages, child processes): Chromium on Xvfb
with the sidecar's CDP client attached, and desktopd to click with. Readiness comes from each
process's own signal (the line it prints when listening), never from a sleep."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from sidecar.cdp.connection import CDPConnection
from sidecar.cdp.targets import PageTarget, TargetTracker
from sidecar.layout import LayoutOptions, LayoutService
from testbed.children import (CHROMIUM_FLAGS, Sidecar, drain, read_line_matching, start_module,
                              start_sidecar, stop)
from testbed.xvfb import start_xvfb


@dataclass
class Chromium:
    process: subprocess.Popen
    conn: CDPConnection
    tracker: TargetTracker
    profile: tempfile.TemporaryDirectory
    # /layout's service over this connection, as the sidecar's supervisor makes one; a copy with
    # another tracker (dataclasses.replace) gets its own.
    layout_service: LayoutService = field(init=False)

    def __post_init__(self) -> None:
        self.layout_service = LayoutService(self.conn, self.tracker)

    async def page(self) -> PageTarget:
        await self.tracker.wait_for(lambda: bool(self.tracker.pages()), 20)
        page = self.tracker.pages()[0]
        await page.ready.wait()
        return page

    async def navigate(self, page: PageTarget, url: str, children: int = 0,
                       until: str = "Page.loadEventFired") -> None:
        """Load ``url`` and wait for its load event, or the event ``until`` names (and for
        ``children`` OOPIFs to attach)."""
        async with self.conn.events(until, session_id=page.session_id) as events:
            await page.send("Page.enable")
            await page.send("Page.navigate", {"url": url})
            await events.get(timeout=20)
        if children:
            await self.tracker.wait_for(lambda: len(page.children) >= children, 20)

    async def layout(self, **query: str) -> dict[str, Any]:
        return await self.layout_service.build(LayoutOptions.from_query(query))

    async def evaluate(self, page: Any, expression: str) -> Any:
        reply = await page.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                     "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise AssertionError(f"page threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    async def close(self) -> None:
        self.layout_service.stop()
        self.tracker.stop()
        await self.conn.close()
        stop(self.process, group=True)
        self.profile.cleanup()


async def launch_chromium(display: str, *, extra: Sequence[str] = (), position: tuple[int, int] = (0, 0),
                          size: tuple[int, int] = (1100, 760)) -> Chromium:
    profile = tempfile.TemporaryDirectory(prefix="layout-test-chromium-")
    command = ["/usr/bin/chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile.name}",
               "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
               f"--window-position={position[0]},{position[1]}",
               f"--window-size={size[0]},{size[1]}", *extra, "about:blank"]
    process = subprocess.Popen(command, env={**os.environ, "DISPLAY": display},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        match = await asyncio.to_thread(
            read_line_matching, process.stderr, re.compile(r"DevTools listening on (ws://\S+)"),
            process, 30, "chromium")
        drain(process.stderr)
        conn = await CDPConnection.connect(match.group(1), call_timeout=15)
        tracker = TargetTracker(conn)
        await tracker.start()
    except BaseException:
        stop(process, group=True)
        profile.cleanup()
        raise
    return Chromium(process, conn, tracker, profile)


@dataclass
class Desktopd:
    process: subprocess.Popen
    url: str
    session: aiohttp.ClientSession | None = field(default=None)

    async def tap(self, x: int, y: int) -> None:
        await self.post("/api/v1/tablet", {"x": x, "y": y, "action": "tap"})

    async def keys(self, keys: str) -> None:
        await self.post("/api/v1/keyboard", {"keys": keys})

    async def post(self, path: str, body: dict) -> dict:
        if self.session is None:
            self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
        async with self.session.post(self.url + path, json=body) as response:
            data = await response.json()
            if response.status != 200:
                raise AssertionError(f"desktopd {path} {body}: {response.status} {data}")
            return data

    async def post_no_content(self, path: str, body: dict) -> None:
        """The original's compatibility endpoints answer 204 No Content."""
        if self.session is None:
            self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
        async with self.session.post(self.url + path, json=body) as response:
            if response.status != 204:
                raise AssertionError(f"desktopd {path} {body}: {response.status} {await response.text()}")

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
        stop(self.process)


async def start_desktopd(display: str, *extra: str) -> Desktopd:
    process, (listening,) = await start_module(
        ["desktopd", "--display", display, "--port", "0", *extra],
        [(r"desktopd listening on (http://[\d.]+:\d+)", 30, "desktopd")])
    return Desktopd(process, listening.group(1))


@contextlib.asynccontextmanager
async def sidecar_and_desktopd(log_dir: Path, url: str, *, desktopd_knows_sidecar: bool = False
                               ) -> AsyncIterator[tuple[Sidecar, Desktopd, aiohttp.ClientSession]]:
    """The issue's "done" set-up: a fresh Xvfb, ``python -m sidecar URL`` and desktopd on it
    (told the sidecar's URL when ``desktopd_knows_sidecar``, as in the Chromium image), and an
    HTTP session; all stopped afterwards."""
    server = start_xvfb(1280, 800, log_path=str(log_dir / "xvfb.log"))
    sidecar = desktopd = None
    try:
        sidecar = await start_sidecar(server.display, url)
        desktopd = await start_desktopd(server.display,
                                         *(("--sidecar-url", sidecar.url) if desktopd_knows_sidecar else ()))
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            yield sidecar, desktopd, session
    finally:
        if desktopd is not None:
            await desktopd.close()
        if sidecar is not None:
            await sidecar.close()
        server.stop()


