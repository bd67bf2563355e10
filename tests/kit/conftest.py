"""Fixtures of the harness kit's tests: a real desktopd on the session's Xvfb, and the kit's
clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktopd_kit import Desktop
from testbed.desktopd import DesktopdProcess
from testbed.x11_fixtures import desktopd  # noqa: F401 (fixture)


@pytest.fixture
def desktop(desktopd: DesktopdProcess) -> Iterator[Desktop]:
    with Desktop(desktopd.url) as client:
        yield client
