"""A real desktopd on the session's Xvfb, with recorders that report what X delivered."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator

import pytest

from tests.desktopd_api.conftest import DesktopdProcess, Recorder, start_desktopd
from tests.support.capability import require

HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def desktopd(xvfb) -> Iterator[DesktopdProcess]:
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


class PointerRecorder:
    """xrecorder.py in a subprocess: pointer events with button numbers and modifier state."""

    def __init__(self, display: str) -> None:
        self.events: queue.Queue[dict] = queue.Queue()
        self.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "xrecorder.py")],
            env={**os.environ, "DISPLAY": display}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.wait_for("ready", timeout=30)
        except queue.Empty:
            self.stop()
            raise RuntimeError("the X recorder did not come up") from None

    def _read(self) -> None:
        for line in self.process.stdout:
            self.events.put(json.loads(line))

    def wait_for(self, kind: str, timeout: float = 10) -> dict:
        while True:
            event = self.events.get(timeout=timeout)
            if event["ev"] == kind:
                return event

    def collect(self, until: str, until_b: int | None = None, timeout: float = 10) -> list[dict]:
        out = []
        while True:
            event = self.events.get(timeout=timeout)
            out.append(event)
            if event["ev"] == until and (until_b is None or event.get("b") == until_b):
                return out

    def presses(self, count: int, timeout: float = 10) -> list[dict]:
        """The next ``count`` button presses (other events dropped)."""
        return [self.wait_for("press", timeout) for _ in range(count)]

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
        if not self.process.stdout.closed:
            self.process.stdout.close()


def have_python_xlib() -> bool:
    try:
        return subprocess.run(["/usr/bin/python3", "-c", "import Xlib"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture
def pointer_recorder(xvfb) -> Iterator[PointerRecorder]:
    require(have_python_xlib(), "/usr/bin/python3 with python-xlib (Debian package python3-xlib)")
    rec = PointerRecorder(xvfb.display)
    try:
        yield rec
    finally:
        rec.stop()


@pytest.fixture
def recorder(xvfb) -> Iterator[Recorder]:
    rec = Recorder(xvfb.display)
    try:
        yield rec
    finally:
        rec.stop()
