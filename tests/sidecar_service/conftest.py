"""Fixtures of the sidecar service suite: a fake CDP server (unit) and real Chromium (integration)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from testbed.capability import require_chromium

from .fake_cdp import FakeCDPServer
from .support import Sites, serve_pages


@pytest.fixture
async def fake_cdp() -> AsyncIterator[FakeCDPServer]:
    server = FakeCDPServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()

MAIN_PAGE = """<!doctype html><title>Main</title>
<h1>Main page</h1><button id="go">Go</button>
<iframe id="same" src="/frame" width="300" height="100"></iframe>
<iframe id="cross" src="{cross}" width="300" height="100"></iframe>"""
SECOND_PAGE = "<!doctype html><title>Second</title><p>second tab</p><a href='/'>home</a>"
FRAME_PAGE = "<!doctype html><title>Frame</title><button>In frame</button>"


@pytest.fixture
def chromium() -> str:
    return require_chromium()


@pytest.fixture
async def sites() -> AsyncIterator[Sites]:
    """Two origins: 127.0.0.1:P1 (main pages) and localhost:P2 (a cross-site iframe)."""
    # Bound on 127.0.0.1 but addressed as "localhost": another site, hence another renderer.
    cross_runner, cross_port = await serve_pages({"/frame": FRAME_PAGE})
    cross = f"http://localhost:{cross_port}/frame"
    sites = Sites({})
    main_runner, main_port = await serve_pages(
        {"/": MAIN_PAGE.format(cross=cross), "/second": SECOND_PAGE, "/frame": FRAME_PAGE},
        sites=sites)
    base = f"http://127.0.0.1:{main_port}"
    sites.update(main=base + "/", second=base + "/second", cross_frame=cross, slow=base + "/slow")
    try:
        yield sites
    finally:
        sites.slow_release.set()
        await main_runner.cleanup()
        await cross_runner.cleanup()
