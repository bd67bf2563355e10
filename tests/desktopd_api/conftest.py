"""Fixtures for desktopd's HTTP layer: an in-process app over a fake desktop (unit tests) and a
real `python -m desktopd` on a real Xvfb (integration tests, marker x11)."""

from __future__ import annotations

import functools
import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator

import pytest

from desktopd.app import init_app
from desktopd.settings import Settings
from tests.support.capability import require
from tests.support.desktopd import DesktopdProcess, start_desktopd

from .fake_desktop import FAKE_ERRORS, FakeDesktop


@pytest.fixture
def fake_desktop() -> FakeDesktop:
    return FakeDesktop(":99")


@pytest.fixture
def make_client(aiohttp_client, fake_desktop):
    async def make(**settings):
        app = init_app(Settings(display=":99", **settings),
                       desktop_factory=lambda display: fake_desktop, x_errors=FAKE_ERRORS)
        return await aiohttp_client(app)
    return make


@pytest.fixture
async def client(make_client):
    return await make_client()


# ---- integration: a real desktopd process on a real Xvfb ---------------------------------------

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def desktopd(xvfb) -> Iterator[DesktopdProcess]:
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


@functools.lru_cache(maxsize=1)
def have_tkinter() -> bool:
    try:
        return subprocess.run(["/usr/bin/python3", "-c", "import tkinter"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Recorder:
    """The Tk recorder subprocess; events() reads what it saw."""

    def __init__(self, display: str, title: str = "recorder") -> None:
        require(have_tkinter(), "/usr/bin/python3 with tkinter (Debian package python3-tk)")
        self.events: queue.Queue[dict] = queue.Queue()
        self.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "recorder.py"), title],
            env={**os.environ, "DISPLAY": display}, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        try:
            ready = self.wait_for("ready", timeout=30)
        except queue.Empty:
            self.stop()
            raise RuntimeError("the Tk recorder did not come up") from None
        self.window_id = ready["id"]
        self.frame_id = ready["frame"]

    def _read(self) -> None:
        for line in self.process.stdout:
            self.events.put(json.loads(line))

    def wait_for(self, kind: str, timeout: float = 10) -> dict:
        """The next event of ``kind`` (earlier ones of other kinds are dropped)."""
        while True:
            event = self.events.get(timeout=timeout)
            if event["ev"] == kind:
                return event

    def collect(self, until: str, until_b: int | None = None, timeout: float = 10) -> list[dict]:
        """Events up to and including the first ``until`` event (with button ``until_b``)."""
        out = []
        while True:
            event = self.events.get(timeout=timeout)
            out.append(event)
            if event["ev"] == until and (until_b is None or event.get("b") == until_b):
                return out

    def text(self) -> str:
        self.process.stdin.write("text\n")
        self.process.stdin.flush()
        return self.wait_for("text")["text"]

    def drain(self) -> None:
        while not self.events.empty():
            self.events.get_nowait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for pipe in (self.process.stdin, self.process.stdout):
            if not pipe.closed:
                pipe.close()


@pytest.fixture
def recorder(xvfb) -> Iterator[Recorder]:
    rec = Recorder(xvfb.display)
    try:
        yield rec
    finally:
        rec.stop()
