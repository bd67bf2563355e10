"""Clients of desktopd and its sidecar: Desktop (sync, requests) and AsyncDesktop (aiohttp).

Both take their methods from api.DesktopApi (one description of every endpoint) and differ only
in how bytes move. Every failure is a DesktopError; reads (GET, screenshots included) are retried
on a missing answer or a 502/503/504 with bounded backoff, writes never are."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from .api import DesktopApi, healthy
from .calls import Call, Reply, json_reply
from .download import CHUNK_BYTES, FileSink
from .errors import DesktopError
from .retry import RetryPolicy

if TYPE_CHECKING:
    import aiohttp

T = TypeVar("T")
DEFAULT_TIMEOUT_S = 30.0
# The sidecar's address, or a function giving it when it is only known once serving (the
# sidecar's own MCP server on --port 0).
SidecarUrl = str | Callable[[], str]


class _Endpoints:
    """Where a call goes and with which headers: shared by both clients."""

    def __init__(self, url: str, token: str | None, sidecar_url: SidecarUrl | None, sidecar_token: str | None,
                 timeout: float, retry: RetryPolicy) -> None:
        self.url = url.rstrip("/")
        self.sidecar_url = sidecar_url.rstrip("/") if isinstance(sidecar_url, str) else sidecar_url
        self.timeout = timeout
        self.retry = retry
        self._tokens = {"desktopd": token, "sidecar": sidecar_token if sidecar_token is not None else token}

    def url_of(self, call: Call) -> str:
        if call.service == "desktopd":
            return self.url + call.path
        if self.sidecar_url is None:
            raise DesktopError(None, "no_sidecar", "this client was made without sidecar_url",
                               method=call.method, url=call.path)
        base = self.sidecar_url() if callable(self.sidecar_url) else self.sidecar_url
        return base.rstrip("/") + call.path

    def headers_of(self, call: Call) -> dict[str, str]:
        token = self._tokens[call.service]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if call.json is not None:
            headers["Content-Type"] = "application/json"
        return headers

    def timeout_of(self, call: Call) -> float:
        return self.timeout + call.extra_timeout


class Desktop(DesktopApi):
    """A desktop (and optionally its browser's sidecar), synchronously; one connection pool.

    >>> d = Desktop("http://127.0.0.1:8080", sidecar_url="http://127.0.0.1:8122")
    >>> d.tap(100, 200); png = d.screenshot().data
    """

    def __init__(self, url: str, token: str | None = None, sidecar_url: SidecarUrl | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, *, sidecar_token: str | None = None,
                 retry: RetryPolicy = RetryPolicy()) -> None:
        import requests
        self._requests = requests
        self.endpoints = _Endpoints(url, token, sidecar_url, sidecar_token, timeout, retry)
        self._session = requests.Session()

    def _call(self, call: Call[T]) -> T:
        url = self.endpoints.url_of(call)
        delays = self.endpoints.retry.delays()
        while True:
            try:
                return call.finish(self._send(call, url), url)
            except DesktopError as error:
                delay = next(delays, None) if RetryPolicy.should_retry(call.idempotent, error) else None
                if delay is None:
                    raise
                time.sleep(delay)

    def _send(self, call: Call, url: str) -> Reply:
        requests = self._requests
        try:
            with self._session.request(
                    call.method, url, params=call.params or None, headers=self.endpoints.headers_of(call),
                    data=call.encoded(), timeout=self.endpoints.timeout_of(call),
                    stream=call.save_to is not None) as response:
                if call.save_to is not None and call.saves(response.status_code):
                    sink = FileSink(call.save_to)
                    try:
                        for chunk in response.iter_content(CHUNK_BYTES):
                            sink.write(chunk)
                    except BaseException:
                        sink.abandon()
                        raise
                    return Reply(response.status_code, response.headers, b"", sink.finish())
                return Reply(response.status_code, response.headers, response.content)
        except requests.Timeout as exc:
            raise DesktopError(None, "timeout", str(exc), method=call.method, url=url) from None
        except requests.RequestException as exc:
            raise DesktopError(None, "connection_error", str(exc), method=call.method, url=url) from None

    def demonstration_actions(self, since: int = 0, *, follow: bool = True, max_seconds: float | None = None,
                              heartbeat_s: float | None = None) -> Iterator[dict]:
        """The demonstration's NDJSON lines as they come: actions (``seq``), heartbeats, and an
        ``end`` line last; DesktopError when desktopd refuses or the connection breaks."""
        params: dict[str, str] = {"since": str(since), "follow": "true" if follow else "false"}
        if max_seconds is not None:
            params["max_seconds"] = str(max_seconds)
        if heartbeat_s is not None:
            params["heartbeat_s"] = str(heartbeat_s)
        url = self.endpoints.url + "/api/v1/demonstration/actions"
        headers = self.endpoints.headers_of(Call("desktopd", "GET", "/api/v1/demonstration/actions", json_reply))
        requests = self._requests
        try:
            # read timeout: desktopd writes a heartbeat every few seconds while following
            with self._session.get(url, params=params, headers=headers, stream=True,
                                   timeout=(self.endpoints.timeout, 30.0)) as response:
                if response.status_code != 200:
                    Call("desktopd", "GET", "/api/v1/demonstration/actions", json_reply).finish(
                        Reply(response.status_code, response.headers, response.content), url)
                for line in response.iter_lines():
                    if line:
                        yield json.loads(line)
        except requests.RequestException as exc:
            raise DesktopError(None, "connection_error", str(exc), method="GET", url=url) from None

    def wait_until_healthy(self, timeout: float = 60.0, interval: float = 0.25) -> dict:
        """Polls /health (and the sidecar's) until both say ok; DesktopError(code "unhealthy")
        with the last answer after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        last: object = None
        while True:
            try:
                desk = self.health()
                side = self.sidecar_health() if self.endpoints.sidecar_url else None
                if healthy(desk, side):
                    return desk
                last = {"desktopd": desk, "sidecar": side}
            except DesktopError as error:
                last = str(error)
            if time.monotonic() + interval > deadline:
                raise DesktopError(None, "unhealthy", f"not healthy within {timeout} s: {last}", body=last)
            time.sleep(interval)

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Desktop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncDesktop(DesktopApi):
    """The same methods as Desktop, each returning an awaitable; one aiohttp session.

    >>> async with AsyncDesktop("http://127.0.0.1:8080") as d:
    ...     shot = await d.screenshot("jpeg", max_width=1280)
    """

    def __init__(self, url: str, token: str | None = None, sidecar_url: SidecarUrl | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, *, sidecar_token: str | None = None,
                 retry: RetryPolicy = RetryPolicy()) -> None:
        self.endpoints = _Endpoints(url, token, sidecar_url, sidecar_token, timeout, retry)
        self._session: aiohttp.ClientSession | None = None   # made on first use: aiohttp wants a running loop

    async def _call(self, call: Call[T]) -> T:
        url = self.endpoints.url_of(call)
        delays = self.endpoints.retry.delays()
        while True:
            try:
                return call.finish(await self._send(call, url), url)
            except DesktopError as error:
                delay = next(delays, None) if RetryPolicy.should_retry(call.idempotent, error) else None
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def _send(self, call: Call, url: str) -> Reply:
        import aiohttp
        if self._session is None:
            self._session = aiohttp.ClientSession()
        try:
            async with self._session.request(
                    call.method, url, params=call.params or None, headers=self.endpoints.headers_of(call),
                    data=call.encoded(), timeout=aiohttp.ClientTimeout(total=self.endpoints.timeout_of(call))) as response:
                if call.save_to is not None and call.saves(response.status):
                    sink = FileSink(call.save_to)
                    try:
                        async for chunk in response.content.iter_chunked(CHUNK_BYTES):
                            sink.write(chunk)   # a file write of one chunk: short enough for the loop
                    except BaseException:
                        sink.abandon()
                        raise
                    return Reply(response.status, response.headers, b"", sink.finish())
                return Reply(response.status, response.headers, await response.read())
        except asyncio.TimeoutError as exc:
            raise DesktopError(None, "timeout", str(exc) or "no answer in time", method=call.method, url=url) from None
        except aiohttp.ClientError as exc:
            raise DesktopError(None, "connection_error", str(exc), method=call.method, url=url) from None

    async def wait_until_healthy(self, timeout: float = 60.0, interval: float = 0.25) -> dict:
        """As Desktop.wait_until_healthy."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last: object = None
        while True:
            try:
                desk = await self.health()
                side = await self.sidecar_health() if self.endpoints.sidecar_url else None
                if healthy(desk, side):
                    return desk
                last = {"desktopd": desk, "sidecar": side}
            except DesktopError as error:
                last = str(error)
            if loop.time() + interval > deadline:
                raise DesktopError(None, "unhealthy", f"not healthy within {timeout} s: {last}", body=last)
            await asyncio.sleep(interval)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> AsyncDesktop:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
