"""Helpers for the sidecar's integration tests: local web sites, a real sidecar process."""

from __future__ import annotations

import asyncio
import os
import re
import select
import shutil
import signal
import sys
import tempfile
from collections.abc import Mapping, Sequence

import aiohttp
from aiohttp import web

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LISTENING = re.compile(r"sidecar listening on (http://\S+)")


class Sites(dict):
    """URLs by name, plus the events of the ``/slow`` page (requested, release)."""

    def __init__(self, urls: Mapping[str, str]) -> None:
        super().__init__(urls)
        self.slow_requested = asyncio.Event()
        self.slow_release = asyncio.Event()


async def serve_pages(pages: Mapping[str, str], host: str = "127.0.0.1",
                      sites: Sites | None = None) -> tuple[web.AppRunner, int]:
    """Serve ``{path: html}`` on a free port of ``host``. With ``sites``, ``/slow`` answers only
    once ``sites.slow_release`` is set (at most 30 s): a page that stays loading during a test."""
    app = web.Application()
    for path, html in pages.items():
        async def handler(_request: web.Request, html: str = html) -> web.Response:
            return web.Response(text=html, content_type="text/html")
        app.router.add_get(path, handler)
    if sites is not None:
        async def slow(_request: web.Request) -> web.Response:
            sites.slow_requested.set()
            try:
                await asyncio.wait_for(sites.slow_release.wait(), 30)
            except asyncio.TimeoutError:
                pass
            return web.Response(text="<title>Slow</title>", content_type="text/html")
        app.router.add_get("/slow", slow)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, host, 0)
    await site.start()
    return runner, runner.addresses[0][1]


class SidecarProcess:
    """``python -m sidecar`` as a child process; its log lines are kept and can be awaited."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.base_url = ""
        self.tmpdir: str | None = None
        self._new_line = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.http = aiohttp.ClientSession()

    @classmethod
    async def start(cls, args: Sequence[str], *, python: str = sys.executable,
                    env: Mapping[str, str] | None = None, timeout: float = 60) -> SidecarProcess:
        # A temp dir of its own: a sidecar killed with SIGKILL cannot remove its profile.
        tmpdir = tempfile.mkdtemp(prefix="sidecar-test-")
        child_env = {**os.environ, "PYTHONPATH": REPO, "TMPDIR": tmpdir, **(env or {})}
        process = await asyncio.create_subprocess_exec(
            python, "-m", "sidecar", "--port", "0", *args, cwd=REPO, env=child_env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE)
        sidecar = cls(process)
        sidecar.tmpdir = tmpdir
        try:
            line = await sidecar.wait_for_line(_LISTENING, timeout)
            sidecar.base_url = _LISTENING.search(line).group(1)
        except BaseException:
            await sidecar.stop()
            raise
        return sidecar

    async def _read(self) -> None:
        assert self.process.stderr is not None
        while True:
            raw = await self.process.stderr.readline()
            if not raw:
                self._new_line.set()
                return
            self.lines.append(raw.decode("utf-8", "replace").rstrip())
            self._new_line.set()

    async def wait_for_line(self, pattern: str | re.Pattern, timeout: float, *, after: int = 0) -> str:
        """The first log line from index ``after`` on matching ``pattern``."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        index = after
        while True:
            while index < len(self.lines):
                if regex.search(self.lines[index]):
                    return self.lines[index]
                index += 1
            if self._reader.done():
                raise AssertionError(f"sidecar exited before logging {regex.pattern!r}:\n" + self.log())
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no log line {regex.pattern!r} within {timeout} s:\n" + self.log())
            self._new_line.clear()
            try:
                await asyncio.wait_for(self._new_line.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    def log(self, last: int = 40) -> str:
        return "\n".join(line for line in self.lines[-last:] if "dbus" not in line)

    async def get(self, path: str, **kwargs) -> tuple[int, dict]:
        async with self.http.get(self.base_url + path, **kwargs) as response:
            return response.status, await response.json()

    async def request(self, method: str, path: str, **kwargs) -> tuple[int, dict]:
        async with self.http.request(method, self.base_url + path, **kwargs) as response:
            return response.status, await response.json()

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        await self.http.close()
        if self.process.returncode is None:
            self.process.send_signal(sig)
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        await asyncio.wait_for(self._reader, 10)
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
        return self.process.returncode


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def wait_pid_gone(pid: int, timeout: float) -> bool:
    """True once ``pid`` has exited (a pidfd becomes readable), False after ``timeout``."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        loop = asyncio.get_running_loop()
        readable, _, _ = await loop.run_in_executor(None, select.select, [fd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(fd)
