"""Fixtures of the sidecar service suite: a fake CDP server (unit) and real Chromium (integration)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .fake_cdp import FakeCDPServer


@pytest.fixture
async def fake_cdp() -> AsyncIterator[FakeCDPServer]:
    server = FakeCDPServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
