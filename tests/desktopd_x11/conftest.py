"""Fixtures for the X layer's integration tests: a private Xvfb per module, real Tk recorder
windows, optionally a real xfwm4. Nothing here fakes X."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktopd.x11.desktop import Desktop
from tests.support.capability import have_program, require
from testbed.xvfb import Xvfb, start_xvfb

RECORDER = Path(__file__).with_name("recorder.py")
WIDTH, HEIGHT = 1280, 800


def tk_python() -> str | None:
    """A Python with tkinter (the venv's, else Debian's with python3-tk)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([candidate, "-c", "import tkinter"], capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


class Recorder:
    """A running recorder.py: its JSON event lines arrive on a queue read by a thread."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.lines: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()
        self.ready = self.wait_for(lambda e: e.get("ready"), timeout=20)

    def _pump(self) -> None:
        for line in self.process.stdout:
            try:
                self.lines.put(json.loads(line))
            except json.JSONDecodeError:
                continue
        self.lines.put({"event": "eof"})

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 5.0) -> dict:
        deadline = time.monotonic() + timeout
        for event in self.seen:
            if predicate(event):
                self.seen.remove(event)
                return event
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching event within {timeout}s; saw {self.seen[-20:]}")
            try:
                event = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if predicate(event):
                return event
            self.seen.append(event)
            if event.get("event") == "eof":
                raise AssertionError(f"recorder exited; saw {self.seen[-20:]}")

    def collect_until(self, predicate: Callable[[dict], bool], timeout: float = 10.0) -> list[dict]:
        """Every event up to and including the first that matches ``predicate``."""
        events = list(self.seen)
        self.seen.clear()
        for index, event in enumerate(events):
            if predicate(event):
                self.seen.extend(events[index + 1:])
                return events[:index + 1]
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"end marker not seen within {timeout}s; got {events[-20:]}")
            try:
                event = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            events.append(event)
            if predicate(event) or event.get("event") == "eof":
                return events

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self._pump_thread.join(timeout=10)  # EOF once the process is gone
        self.process.stdout.close()


@pytest.fixture(scope="module")
def xserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Xvfb]:
    """A private Xvfb for each test module (tests change focus, keymaps, windows)."""
    require(have_program("Xvfb"), "Xvfb (Debian package xvfb)")
    log = tmp_path_factory.mktemp("xvfb") / "xvfb.log"
    server = start_xvfb(WIDTH, HEIGHT, log_path=str(log), extra_args=("-br",))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def x_env(xserver: Xvfb) -> dict[str, str]:
    return {**os.environ, "DISPLAY": xserver.display, "LANG": "C.UTF-8"}


@pytest.fixture
def desktop(xserver: Xvfb) -> Iterator[Desktop]:
    desk = Desktop(xserver.display)
    try:
        yield desk
    finally:
        desk.close()
        desk.executor.shutdown(wait=True)


@pytest.fixture
def start_recorder(x_env: dict[str, str]) -> Iterator[Callable[..., Recorder]]:
    python = tk_python()
    require(python is not None, "tkinter (Debian package python3-tk)")
    started: list[Recorder] = []

    def start(geometry: str = "300x200+50+60", color: str = "#ff0000",
              title: str = "recorder") -> Recorder:
        process = subprocess.Popen(
            [python, str(RECORDER), "--geometry", geometry, "--color", color, "--title", title],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=x_env)
        recorder = Recorder(process)
        started.append(recorder)
        return recorder

    try:
        yield start
    finally:
        for recorder in started:
            recorder.stop()


@pytest.fixture
def window_manager(x_env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """A real xfwm4 on the test display (it needs a session bus for xfconf)."""
    require(have_program("xfwm4"), "xfwm4 (Debian package xfwm4)")
    require(have_program("dbus-run-session"), "dbus-run-session (Debian package dbus-daemon)")
    process = subprocess.Popen(
        ["dbus-run-session", "--", "xfwm4", "--display", x_env["DISPLAY"], "--compositor=off",
         "--replace"], env=x_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)  # its own process group: we stop exactly what we started
    try:
        yield process
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def wait_for_mapped(display: str, title: str, timeout: float = 10.0) -> None:
    """Until the WM lists a client with this title (managed, framed, mapped)."""
    desk = Desktop(display)
    try:
        deadline = time.monotonic() + timeout
        while not any(w["title"] == title and w["visible"] and w["frame_id"] != w["id"]
                      for w in desk.windows()):
            if time.monotonic() > deadline:
                raise AssertionError(f"window {title!r} was not managed in time")
            time.sleep(0.05)  # bounded: a WM gives no single "done managing" signal
    finally:
        desk.close()
        desk.executor.shutdown(wait=False)
