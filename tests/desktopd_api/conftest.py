"""Fixtures for desktopd's HTTP layer: an in-process app over a fake desktop (unit tests) and a
real `python -m desktopd` on a real Xvfb (integration tests, marker x11)."""

from __future__ import annotations

import pytest

from desktopd.app import init_app
from desktopd.settings import Settings
# Integration: a real desktopd process on the session's Xvfb, and a recording X client.
from tests.support.x11_fixtures import desktopd, recorder  # noqa: F401 (fixtures)

from .fake_desktop import FAKE_ERRORS, FakeDesktop, unwatched_settler


@pytest.fixture
def fake_desktop() -> FakeDesktop:
    return FakeDesktop(":99")


@pytest.fixture
def make_client(aiohttp_client, fake_desktop):
    async def make(**settings):
        app = init_app(Settings(display=":99", **settings),
                       desktop_factory=lambda display: fake_desktop, x_errors=FAKE_ERRORS,
                       settler_factory=unwatched_settler)
        return await aiohttp_client(app)
    return make


@pytest.fixture
async def client(make_client):
    return await make_client()

