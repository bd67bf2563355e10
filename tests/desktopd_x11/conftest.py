"""Fixtures for the X layer's integration tests: a private Xvfb per module, real Tk recorder
windows, optionally a real xfwm4. Nothing here fakes X."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from desktopd.x11.desktop import X11Desktop
from testbed.capability import have_program, require
from testbed.recorder import X11_WINDOW, Recorder
from testbed.wm import wait_for_window_manager
from testbed.xvfb import Xvfb, start_xvfb

WIDTH, HEIGHT = 1280, 800


def tk_python() -> str | None:
    """A Python with tkinter (the venv's, else Debian's with python3-tk)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([candidate, "-c", "import tkinter"], capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


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
    desk = X11Desktop(xserver.display)
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
        recorder = Recorder(None, X11_WINDOW, "--geometry", geometry, "--color", color,
                            "--title", title, python=python, env=x_env)
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


@pytest.fixture
def managed(window_manager, xserver: Xvfb, start_recorder: Callable[..., Recorder]) -> Recorder:
    """A recorder window managed (framed, focused) by a real xfwm4."""
    wait_for_window_manager(xserver.display)
    recorder = start_recorder("300x200+50+60", "#ff0000", "managed")
    wait_for_mapped(xserver.display, "managed")
    return recorder


def wait_for_mapped(display: str, title: str, timeout: float = 10.0) -> None:
    """Until the WM lists a client with this title (managed, framed, mapped)."""
    desk = X11Desktop(display)
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
