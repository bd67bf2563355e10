"""Unit: reads are retried after a failure, writes never; bounded; errors carry the body.
A local aiohttp server (no desktop) that answers 503 once, then 200."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from aiohttp import web

from desktopd_kit import AsyncDesktop, Desktop, DesktopError, RetryPolicy
from testbed.threaded_app import ThreadedApp

FAST = RetryPolicy(attempts=3, backoff_s=0.01)


class FlakyServer:
    """Answers the first ``failures`` requests of each path with a JSON 503, then 200."""

    def __init__(self, failures: int = 1) -> None:
        self.failures = failures
        self.seen: dict[str, int] = {}
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self.server = ThreadedApp(app)

    async def _handle(self, request: web.Request) -> web.Response:
        key = f"{request.method} {request.path}"
        self.seen[key] = self.seen.get(key, 0) + 1
        if self.seen[key] <= self.failures:
            return web.json_response({"error": "unavailable", "detail": "not yet"}, status=503,
                                     headers={"Retry-After": "1"})
        if request.path == "/api/v1/screenshot":
            return web.Response(body=b"\x89PNG", content_type="image/png", headers={
                "X-Region": "0,0,1,1", "X-Scale": "1", "X-Image-Width": "1", "X-Image-Height": "1",
                "X-Screen-Width": "1", "X-Screen-Height": "1"})
        return web.json_response({"x": 1, "y": 2, "windows": []})

    def start(self) -> FlakyServer:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture
def flaky() -> Iterator[FlakyServer]:
    server = FlakyServer().start()
    try:
        yield server
    finally:
        server.stop()


def test_sync_reads_are_retried_once_they_fail(flaky):
    with Desktop(flaky.url, retry=FAST) as client:
        assert client.windows() == []
        assert client.screenshot().data == b"\x89PNG"
    assert flaky.seen == {"GET /api/v1/tree": 2, "GET /api/v1/screenshot": 2}


def test_sync_writes_are_not_retried_and_carry_the_json_error(flaky):
    with Desktop(flaky.url, retry=FAST) as client:
        with pytest.raises(DesktopError) as caught:
            client.tap(1, 2)
    assert flaky.seen == {"POST /api/v1/tablet": 1}
    assert (caught.value.status, caught.value.code, caught.value.message) == (503, "unavailable", "not yet")
    assert caught.value.body == {"error": "unavailable", "detail": "not yet"}


def test_retries_are_bounded():
    server = FlakyServer(failures=10).start()
    try:
        with Desktop(server.url, retry=FAST) as client:
            with pytest.raises(DesktopError) as caught:
                client.windows()
        assert caught.value.status == 503
        assert server.seen == {"GET /api/v1/tree": 3}
    finally:
        server.stop()


async def test_async_reads_retried_writes_not(flaky):
    async with AsyncDesktop(flaky.url, retry=FAST) as client:
        assert await client.windows() == []
        with pytest.raises(DesktopError) as caught:
            await client.tap(1, 2)
    assert caught.value.code == "unavailable"
    assert flaky.seen == {"GET /api/v1/tree": 2, "POST /api/v1/tablet": 1}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_no_answer_is_a_desktop_error_too():
    url = f"http://127.0.0.1:{_closed_port()}"
    with Desktop(url, retry=FAST) as client:
        with pytest.raises(DesktopError) as caught:
            client.health()
    assert (caught.value.status, caught.value.code) == (None, "connection_error")
    async with AsyncDesktop(url, retry=FAST) as client:
        with pytest.raises(DesktopError) as caught:
            await client.health()
    assert caught.value.code == "connection_error"
