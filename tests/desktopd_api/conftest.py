"""Fixtures for desktopd's HTTP layer: an in-process app over a fake desktop (unit tests) and a
real `python -m desktopd` on a real Xvfb (integration tests, marker x11)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktopd.app import init_app
from desktopd.settings import Settings
from testbed.recorder import Recorder
from tests.support.capability import debian_python_has, require
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



@pytest.fixture(scope="module")
def desktopd(xvfb) -> Iterator[DesktopdProcess]:
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def recorder(xvfb) -> Iterator[Recorder]:
    require(debian_python_has("tkinter"), "/usr/bin/python3 with tkinter (Debian package python3-tk)")
    rec = Recorder(xvfb.display)
    try:
        yield rec
    finally:
        rec.stop()
