"""Real processes for the layout tests: a page server, Chromium on Xvfb with the sidecar's CDP
client attached, and desktopd to click with. Readiness comes from each process's own signal
(the line it prints when listening), never from a sleep."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import http.server
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from sidecar.cdp.connection import CDPConnection
from sidecar.cdp.targets import PageTarget, TargetTracker
from sidecar.layout import LayoutOptions, LayoutService
from tests.support.processes import terminate
from tests.support.xvfb import start_xvfb

PAGES = Path(__file__).parent / "pages"
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-default-browser-check", "--password-store=basic", "--site-per-process")


class PageServer:
    """Static test pages on 127.0.0.1; main.html's CROSS_ORIGIN becomes http://localhost:<port>,
    a different site, so that iframe runs out of process."""

    def __init__(self) -> None:
        handler = functools.partial(_PageHandler, directory=str(PAGES))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.httpd.cross_origin = f"http://localhost:{self.port}"   # type: ignore[attr-defined]
        # /held: a response held back until the test releases it (a page that stays loading).
        self.release = threading.Event()
        self.httpd.release = self.release   # type: ignore[attr-defined]
        # /gated/<name>.svg: a 120x60 image held back until gate(name) is set.
        self.gates: dict[str, threading.Event] = collections.defaultdict(threading.Event)
        self.httpd.gates = self.gates       # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def gate(self, name: str) -> threading.Event:
        return self.gates[name]

    def stop(self) -> None:
        self.release.set()
        for gate in list(self.gates.values()):
            gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class _PageHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/gen/"):
            return self._send(_generated(path), "text/html")
        if path == "/held":
            self.server.release.wait(30)   # type: ignore[attr-defined]
            return self._send("", "text/plain")
        if path.startswith("/gated/") and path.endswith(".svg"):
            self.server.gates[path[len("/gated/"):-4]].wait(30)   # type: ignore[attr-defined]
            return self._send('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
                              '<rect width="120" height="60" fill="teal"/></svg>', "image/svg+xml")
        target = PAGES / path.lstrip("/")
        if path.endswith(".html") and target.is_file():
            body = target.read_text().replace("CROSS_ORIGIN", self.server.cross_origin)  # type: ignore[attr-defined]
            return self._send(body, "text/html")
        super().do_GET()

    def _send(self, body: str, kind: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


def _generated(path: str) -> str:
    """/gen/<n>: a page of about n elements (buttons, links, inputs, text in nested sections)."""
    match = re.fullmatch(r"/gen/(\d+)", path)
    count = min(int(match.group(1)), 50_000) if match else 100
    return generated_page(count)


def generated_page(count: int) -> str:
    parts = ["<!doctype html><html><head><meta charset=utf-8><title>generated</title></head><body>"]
    made = 0
    section = 0
    while made < count:
        parts.append(f"<section><h2>Section {section}</h2><ul>")
        made += 3
        for i in range(10):
            if made >= count:
                break
            n = made
            kind = n % 4
            if kind == 0:
                parts.append(f'<li><button id="g{n}">Button {n}</button></li>')
            elif kind == 1:
                parts.append(f'<li><a href="#a{n}">Link {n}</a></li>')
            elif kind == 2:
                parts.append(f'<li><input aria-label="Field {n}" value="v{n}"></li>')
            else:
                parts.append(f"<li><span>Text {n}</span> <b>bold</b></li>")
            made += 2 if kind != 3 else 3
        parts.append("</ul></section>")
        section += 1
    parts.append("</body></html>")
    return "".join(parts)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _read_line_matching(stream: Any, pattern: re.Pattern[str], process: subprocess.Popen,
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


def _drain(stream: Any) -> None:
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


def _stop(process: subprocess.Popen, group: bool = False) -> None:
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

    async def navigate(self, page: PageTarget, url: str, children: int = 0) -> None:
        """Load ``url`` and wait for its load event (and for ``children`` OOPIFs to attach)."""
        async with self.conn.events("Page.loadEventFired", session_id=page.session_id) as events:
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
        _stop(self.process, group=True)
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
            _read_line_matching, process.stderr, re.compile(r"DevTools listening on (ws://\S+)"),
            process, 30, "chromium")
        _drain(process.stderr)
        conn = await CDPConnection.connect(match.group(1), call_timeout=15)
        tracker = TargetTracker(conn)
        await tracker.start()
    except BaseException:
        _stop(process, group=True)
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
        _stop(self.process)


async def _start_module(args: Sequence[str], waits: Sequence[tuple[str, float, str]]) -> tuple[
        subprocess.Popen, list[re.Match[str]]]:
    """``python -m ARGS`` from the repository, ready once its stderr has shown each line of
    ``waits`` (pattern, timeout s, what to call it in an error), in order."""
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=str(ROOT), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    matches = []
    try:
        for pattern, timeout, name in waits:
            matches.append(await asyncio.to_thread(
                _read_line_matching, process.stderr, re.compile(pattern), process, timeout, name))
    except BaseException:
        _stop(process)
        raise
    _drain(process.stderr)
    return process, matches


async def start_desktopd(display: str) -> Desktopd:
    process, (listening,) = await _start_module(
        ["desktopd", "--display", display, "--port", "0"],
        [(r"desktopd listening on (http://[\d.]+:\d+)", 30, "desktopd")])
    return Desktopd(process, listening.group(1))


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
        _stop(self.process)


@contextlib.asynccontextmanager
async def sidecar_and_desktopd(log_dir: Path, url: str) -> AsyncIterator[
        tuple[Sidecar, Desktopd, aiohttp.ClientSession]]:
    """The issue's "done" set-up: a fresh Xvfb, ``python -m sidecar URL`` and desktopd on it,
    and an HTTP session; all stopped afterwards."""
    server = start_xvfb(1280, 800, log_path=str(log_dir / "xvfb.log"))
    sidecar = desktopd = None
    try:
        sidecar = await start_sidecar(server.display, url)
        desktopd = await start_desktopd(server.display)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            yield sidecar, desktopd, session
    finally:
        if desktopd is not None:
            await desktopd.close()
        if sidecar is not None:
            await sidecar.close()
        server.stop()


async def start_sidecar(display: str, *urls: str, extra: Sequence[str] = ()) -> Sidecar:
    """``python -m sidecar URL... --display :N --port 0``, ready once Chromium is up too."""
    process, (listening, _ready) = await _start_module(
        ["sidecar", *urls, "--display", display, "--host", "127.0.0.1", "--port", "0", *extra],
        [(r"sidecar listening on (http://[\d.]+:\d+)", 40, "sidecar"),
         (r"Chromium ready", 40, "sidecar's Chromium")])
    return Sidecar(process, listening.group(1))
