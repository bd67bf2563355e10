"""Fixtures for suites that drive a real desktopd on the session's Xvfb and check what X
delivered with recorder clients; a suite's conftest.py imports the ones it uses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testbed.pages import PageServer
from testbed.recorder import POINTER_RECORDER, Recorder
from testbed.capability import chromium_path, debian_python_has, require
from testbed.desktopd import DesktopdProcess, start_desktopd


@pytest.fixture(scope="module")
def desktopd(xvfb) -> Iterator[DesktopdProcess]:
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


def _recording(display: str, needs: str, package: str, *script: str) -> Iterator[Recorder]:
    require(debian_python_has(needs), f"/usr/bin/python3 with {needs} (Debian package {package})")
    rec = Recorder(display, *script)
    try:
        yield rec
    finally:
        rec.stop()


@pytest.fixture
def recorder(xvfb) -> Iterator[Recorder]:
    """A Tk window that records the key and pointer events X gives it."""
    yield from _recording(xvfb.display, "tkinter", "python3-tk")


@pytest.fixture
def pointer_recorder(xvfb) -> Iterator[Recorder]:
    """An Xlib window that records button presses with their modifier state."""
    yield from _recording(xvfb.display, "Xlib", "python3-xlib", POINTER_RECORDER)


@pytest.fixture
def pages() -> Iterator[PageServer]:
    """testbed's pages on 127.0.0.1, for tests that open them in a real Chromium."""
    require(chromium_path() is not None, "Chromium")
    server = PageServer()
    try:
        yield server
    finally:
        server.stop()
