"""Fixtures of the harness kit's tests: a real desktopd on the session's Xvfb, and the kit's
clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktopd_kit import Desktop
from tests.support.desktopd import DesktopdProcess, start_desktopd
from testbed.xvfb import Xvfb


@pytest.fixture(scope="module")
def desktopd(xvfb: Xvfb) -> Iterator[DesktopdProcess]:
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def desktop(desktopd: DesktopdProcess) -> Iterator[Desktop]:
    with Desktop(desktopd.url) as client:
        yield client
