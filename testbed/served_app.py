"""A small aiohttp app served on 127.0.0.1 for the length of a test: the other side of a client
in unit tests (desktopd's or the sidecar's answers, as the test writes them)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from aiohttp.test_utils import TestServer


@asynccontextmanager
async def served(routes: list[web.RouteDef]) -> AsyncIterator[str]:
    """Serves ``routes``; yields the base URL (no trailing slash)."""
    app = web.Application()
    app.add_routes(routes)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/")
    finally:
        await server.close()
