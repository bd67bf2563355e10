"""Chromium's DevTools endpoint for scripts that drive the browser directly (--expose-cdp).

Chromium's own endpoint has no authentication: whoever reaches it controls the browser, and with
``--remote-allow-origins=*`` (which the reference used) so does any web page. So Chromium keeps a
private loopback port, and this proxy serves the part of its endpoint that CDP clients use
(``/json/version``, ``/json/list``, ``/json/protocol`` and the ``/devtools/...`` WebSockets)
behind the same browser guard and bearer token as the sidecar's API. ``/json/new``,
``/json/close`` and ``/json/activate`` are not served: tabs are opened through the API (its URL
policy applies) or through CDP itself.

The WebSocket URLs Chromium writes into its listings are rewritten to point here, so
``playwright.chromium.connect_over_cdp("http://127.0.0.1:PORT", headers={"Authorization": ...})``
and Puppeteer's ``connect({browserURL, headers})`` work unchanged.

The same handlers serve two places: the sidecar's own port under ``/cdp`` (always, routes in its
route table) and, with ``--expose-cdp``, a port of their own at the root. Each app says under
which prefix it serves them (``PROXY_PREFIX``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from httpapi.appkeys import app_key
from httpapi.errors import ApiError, unavailable
from httpapi.guard import guard_middleware, guard_settings
from httpapi.middlewares import error_middleware, token_auth_middleware

if TYPE_CHECKING:   # the settings module reads browser defaults: a type-only import back
    from ..settings import Settings

log = logging.getLogger(__name__)

LISTINGS = ("/json", "/json/list", "/json/version", "/json/protocol")
# CDP messages can be large (screenshots, whole DOM snapshots): no size limit on either side.
NO_LIMIT = 0
FETCH_TIMEOUT_S = 10.0

ChromiumUrl = Callable[[], "str | None"]      # Chromium's current browser WebSocket URL, or None
PROXY_ORIGIN = app_key("sidecar.browser.cdp_proxy.chromium_ws_url", object)
PROXY_PREFIX = app_key("sidecar.browser.cdp_proxy.prefix", str)    # "" or "/cdp"
# The kinds of DevTools sockets Chromium serves under /devtools/.
SOCKET_KINDS = ("page", "browser", "worker", "iframe", "shared_worker", "service_worker")


def _chromium_base(request: web.Request) -> str:
    """Chromium's current HTTP endpoint (it moves when Chromium restarts)."""
    ws_url = request.app[PROXY_ORIGIN]()
    if not ws_url:
        raise unavailable("Chromium is starting or restarting", retry_after=1)
    parts = urlsplit(ws_url)
    return f"http://{parts.netloc}"


def public_ws_base(request: web.Request) -> str:
    """ws://HOST:PORT[/cdp] of this proxy as the client reached it (its Host header, which the
    guard has already checked)."""
    return f"ws://{request.host}{request.app[PROXY_PREFIX]}"


def chromium_path(request: web.Request) -> str:
    """The request's path on Chromium's endpoint (the proxy's prefix taken off)."""
    return request.path.removeprefix(request.app[PROXY_PREFIX]) or "/"


def _rewrite(value: object, chromium_netloc: str, public: str) -> object:
    """Chromium's ws:// URLs (and devtools front-end ws= parameters) pointed at this proxy."""
    if isinstance(value, list):
        return [_rewrite(item, chromium_netloc, public) for item in value]
    if isinstance(value, dict):
        return {key: _rewrite(item, chromium_netloc, public) for key, item in value.items()}
    if isinstance(value, str) and chromium_netloc in value:
        return value.replace(f"ws://{chromium_netloc}", public).replace(
            f"ws={chromium_netloc}", "ws=" + public.removeprefix("ws://"))
    return value


async def listing(request: web.Request) -> web.Response:
    base = _chromium_base(request)
    path = chromium_path(request).rstrip("/") or "/json"
    timeout = aiohttp.ClientTimeout(total=FETCH_TIMEOUT_S)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.get(base + path) as reply:
                if reply.status != 200:
                    raise ApiError(502, "cdp_error", f"Chromium answered {reply.status} for {path}")
                body = await reply.json(content_type=None)
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        raise unavailable(f"Chromium's DevTools endpoint did not answer: {exc}", retry_after=1) from None
    return web.json_response(_rewrite(body, urlsplit(base).netloc, public_ws_base(request)))


async def devtools_socket(request: web.Request) -> web.StreamResponse:
    """A CDP WebSocket: messages pumped both ways until either side closes."""
    if request.match_info.get("kind") not in SOCKET_KINDS:
        raise ApiError(404, "not_found", f"no DevTools socket kind {request.match_info.get('kind')!r}; "
                                         f"one of {', '.join(SOCKET_KINDS)}")
    if not web.WebSocketResponse().can_prepare(request).ok:
        raise ApiError(400, "not_websocket", f"{request.path} is a CDP WebSocket: connect with a "
                                             "WebSocket client (Upgrade: websocket)")
    target = _chromium_base(request).replace("http://", "ws://", 1) + chromium_path(request)
    upstream_session = aiohttp.ClientSession()
    try:
        try:
            # aiohttp 3.8 (bookworm) takes the timeout in seconds; newer stubs want a ClientWSTimeout.
            upstream = await upstream_session.ws_connect(  # type: ignore[call-overload]
                target, max_msg_size=NO_LIMIT, timeout=FETCH_TIMEOUT_S, autoping=True)
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            raise ApiError(404 if isinstance(exc, aiohttp.WSServerHandshakeError) else 503,
                           "cdp_unreachable", f"{request.path}: {exc}") from None
        client = web.WebSocketResponse(max_msg_size=NO_LIMIT, autoping=True)
        await client.prepare(request)
        pumps = [asyncio.ensure_future(_pump(client, upstream)),
                 asyncio.ensure_future(_pump(upstream, client))]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            await upstream.close()
            await client.close()
        return client
    finally:
        await upstream_session.close()


async def _pump(source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
                sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse) -> None:
    async for message in source:
        if message.type == aiohttp.WSMsgType.TEXT:
            await sink.send_str(message.data)
        elif message.type == aiohttp.WSMsgType.BINARY:
            await sink.send_bytes(message.data)
        else:                       # close or error: the other side is closed by the caller
            return


def proxy_app(settings: Settings, chromium_ws_url: ChromiumUrl) -> web.Application:
    host, _port = settings.expose_cdp or ("127.0.0.1", 0)
    app = web.Application(middlewares=[
        error_middleware,
        guard_middleware(guard_settings(host, settings.allowed_hosts, settings.allowed_origins)),
        token_auth_middleware(settings.token, public_paths=()),
    ])
    app[PROXY_ORIGIN] = chromium_ws_url
    app[PROXY_PREFIX] = ""
    for path in LISTINGS:
        app.router.add_get(path, listing)
        app.router.add_get(path + "/", listing)
    app.router.add_get("/devtools/{kind}/{id}", devtools_socket)
    return app


def serve_proxy(settings: Settings, chromium_ws_url: ChromiumUrl
                ) -> Callable[[web.Application], AsyncIterator[None]]:
    """A cleanup context for the sidecar's app: the proxy listens while the sidecar runs."""

    async def context(_app: web.Application) -> AsyncIterator[None]:
        assert settings.expose_cdp is not None
        host, port = settings.expose_cdp
        runner = web.AppRunner(proxy_app(settings, chromium_ws_url), handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        log.info("Chromium's DevTools endpoint exposed on http://%s:%d (token %s)", host, port,
                 "required" if settings.token else "off")
        try:
            yield
        finally:
            await runner.cleanup()

    return context
