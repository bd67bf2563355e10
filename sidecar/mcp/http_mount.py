"""The MCP server's streamable HTTP transport on the sidecar's own port (``/mcp``).

The SDK serves it as an ASGI application; aiohttp is not ASGI, so each request is handed over
here as one ASGI call: the request's body in, the response's start and body chunks out (SSE
streams included). The route sits in the sidecar's route table, behind its guard and token."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from aiohttp import web

from httpapi.appkeys import app_key
from httpapi.bounded import within
from httpapi.errors import ApiError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _Router(Protocol):
    def lifespan_context(self, app: Any) -> AbstractAsyncContextManager[Any]: ...


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
    if MCP_APP not in request.app:
        raise ApiError(501, "not_implemented", "the MCP server needs the `mcp` package (pip install "
                                               "desktopd[agent]); the images have it")
    request.app[SELF_ADDRESS].learn(request)
    return await call_asgi(request.app[MCP_APP], request)


def serve_mcp(app: web.Application, asgi_app: StarletteLike, self_address: SelfAddress) -> None:
    """Mounts ``asgi_app`` (a Starlette app from FastMCP.streamable_http_app()) for /mcp and
    runs its lifespan (the SDK's session manager) while the sidecar runs.

    The lifespan runs in a task of its own: the SDK's anyio task group must be left in the task
    that entered it, and aiohttp may run a cleanup context's two halves in different tasks."""
    app[MCP_APP] = asgi_app
    app[SELF_ADDRESS] = self_address

    async def lifespan(_app: web.Application) -> AsyncIterator[None]:
        started, stop = asyncio.Event(), asyncio.Event()

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
        try:
            yield
        finally:
            stop.set()
            await within(task, STOP_TIMEOUT_S)

    app.cleanup_ctx.append(lifespan)
