"""Fixtures shared by every suite. Suite-specific fixtures live in each folder's conftest.py."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from testbed.capability import have_program, require
from testbed.xvfb import Xvfb, start_xvfb


@pytest.fixture(scope="session")
def xvfb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Xvfb]:
    """One real Xvfb (1280x800x24) for the session's X11 tests."""
    require(have_program("Xvfb"), "Xvfb (Debian package xvfb)")
    log = tmp_path_factory.mktemp("xvfb") / "xvfb.log"
    server = start_xvfb(1280, 800, log_path=str(log))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def display_env(xvfb: Xvfb) -> dict[str, str]:
    """An environment for child processes that talk to the test display."""
    return {**os.environ, "DISPLAY": xvfb.display}
