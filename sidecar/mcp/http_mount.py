"""The MCP server's streamable HTTP transport on the sidecar's own port (``/mcp``).

The SDK serves it as an ASGI application; aiohttp is not ASGI, so each request is handed over
here as one ASGI call: the request's body in, the response's start and body chunks out (SSE
streams included). The route sits in the sidecar's route table, behind its guard and token."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from aiohttp import web

from httpapi.app_keys import app_key
from httpapi.bounded import within
from httpapi.errors import ApiError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _Router(Protocol):
    def lifespan_context(self, app: StarletteLike) -> AbstractAsyncContextManager[object]: ...


class StarletteLike(Protocol):
    """What is used of the Starlette app FastMCP.streamable_http_app() returns."""
    @property
    def router(self) -> _Router: ...

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...

STOP_TIMEOUT_S = 10.0
MCP_APP = app_key("sidecar.mcp.asgi_app", object)


class SelfAddress:
    """http://IP:PORT of the sidecar as its own clients reach it: the local end of an /mcp
    connection (the port is only known once serving, e.g. with --port 0)."""

    def __init__(self, fallback: str) -> None:
        self.url = fallback

    def learn(self, request: web.Request) -> None:
        local = request.transport.get_extra_info("sockname") if request.transport else None
        if local:
            host = local[0]
            self.url = f"http://{'[' + host + ']' if ':' in host else host}:{local[1]}"

    def __call__(self) -> str:
        return self.url


SELF_ADDRESS = app_key("sidecar.mcp.self_address", SelfAddress)


def _scope(request: web.Request) -> Scope:
    host, port = (request.url.host or "127.0.0.1"), (request.url.port or 80)
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": request.method, "scheme": "http", "path": request.path,
            "raw_path": request.raw_path.split("?", 1)[0].encode(), "root_path": "",
            "query_string": request.query_string.encode(),
            "headers": [(name.lower(), value) for name, value in request.raw_headers],
            "client": tuple(peer[:2]) if peer else None, "server": (host, port)}


async def call_asgi(app: AsgiApp, request: web.Request) -> web.StreamResponse:
    """One HTTP request through an ASGI application; its response streamed back as it comes."""
    body = await request.read()
    body_sent = False
    finished = asyncio.Event()
    response: web.StreamResponse | None = None

    async def receive() -> Message:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()             # the client is served: tell the app it left
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal response
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for name, value in message.get("headers", ()):
                response.headers.add(name.decode("latin-1"), value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body":
            assert response is not None, "body before start"
            if message.get("body"):
                await response.write(message["body"])
            if not message.get("more_body", False):
                await response.write_eof()
                finished.set()

    try:
        await app(_scope(request), receive, send)
    finally:
        finished.set()
    if response is None:
        raise web.HTTPInternalServerError(text="the MCP application sent no response")
    return response


async def mcp_endpoint(request: web.Request) -> web.StreamResponse:
    lazy = request.app.get(MCP_APP)
    if not isinstance(lazy, LazyMcp):
        raise ApiError(501, "not_implemented", "the MCP server needs the `mcp` package (pip install "
                                               "desktopd[agent]); the images have it")
    request.app[SELF_ADDRESS].learn(request)
    return await call_asgi(await lazy.app(), request)


class LazyMcp:
    """The MCP server, built at its first request rather than at start: importing the SDK
    (pydantic, starlette) costs a sidecar ~0.35 s of CPU on the way to healthy and ~24 MiB for
    as long as it runs, which a sidecar nobody speaks MCP to should not pay (docs/benchmarks.md).

    ``modules`` are imported in a worker thread (the event loop keeps serving meanwhile), then
    ``build`` makes the Starlette app (FastMCP.streamable_http_app()) on the loop, whose
    lifespan (the SDK's session manager) then runs in a task of its own until ``close``: the
    SDK's anyio task group must be left in the task that entered it."""

    def __init__(self, modules: tuple[str, ...], build: Callable[[], StarletteLike]) -> None:
        self._modules = modules
        self._build = build
        self._app: StarletteLike | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None

    async def app(self) -> StarletteLike:
        if self._app is not None:
            return self._app
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._app is None:
                for module in self._modules:
                    await asyncio.to_thread(importlib.import_module, module)
                asgi_app = self._build()
                await self._start(asgi_app)
                self._app = asgi_app
        return self._app

    async def _start(self, asgi_app: StarletteLike) -> None:
        started, stop = asyncio.Event(), asyncio.Event()
        self._stop = stop

        async def hold() -> None:
            async with asgi_app.router.lifespan_context(asgi_app):
                started.set()
                await stop.wait()

        task = asyncio.ensure_future(hold())
        waiter = asyncio.ensure_future(started.wait())
        await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if task.done():
            task.result()                 # it failed to start: raise why
        self._task = task

    async def close(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            await within(self._task, STOP_TIMEOUT_S)


def serve_mcp(app: web.Application, lazy: LazyMcp, self_address: SelfAddress) -> None:
    """Mounts the MCP server for /mcp, built at its first request (LazyMcp), and stops it with
    the sidecar."""
    app[MCP_APP] = lazy
    app[SELF_ADDRESS] = self_address

    async def stop(_app: web.Application) -> None:
        await lazy.close()

    app.on_cleanup.append(stop)
