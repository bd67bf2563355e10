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
and Puppeteer's ``connect({browserWSEndpoint, headers})`` work unchanged. The browser socket is handed
out as ``/devtools/browser/desktopd`` and always reaches the browser running now: a client that
reconnects after Chromium restarted (the supervisor starts a new one under a new id) finds it at
the URL it was given. A client closing the last page does not end the browser (last_page.py).
A client that cannot send a header presents the token in the URL (cdp_url_token.py).

The same handlers serve two places: the sidecar's own port (always, routes in its route table),
its listings under ``/cdp`` and at the root (Puppeteer resolves ``/json/version`` against the
root of the URL it is given) and its sockets under ``/cdp``; and, with ``--expose-cdp``, a port
of their own at the root. Each app says under which prefix it serves the sockets
(``PROXY_PREFIX``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

import aiohttp
from aiohttp import web

from httpapi.app_keys import app_key
from httpapi.daemon import ProbeQuietAccessLogger
from httpapi.errors import ApiError, unavailable
from httpapi.guard import guard_middleware, guard_settings
from httpapi.middlewares import error_middleware, token_auth_middleware

from .cdp_url_token import CDP_PREFIXES, LISTING_PATHS, TOKEN_PARAM, url_token
from .last_page import KeepOpen, LastPageKeeper

if TYPE_CHECKING:   # the settings module reads browser defaults: a type-only import back
    from ..settings import Settings

log = logging.getLogger(__name__)

LISTINGS = LISTING_PATHS
# CDP messages can be large (screenshots, whole DOM snapshots): no size limit on either side.
NO_LIMIT = 0
FETCH_TIMEOUT_S = 10.0

ChromiumUrl = Callable[[], "str | None"]      # Chromium's current browser WebSocket URL, or None
PROXY_ORIGIN = app_key("sidecar.browser.cdp_proxy.chromium_ws_url", object)
PROXY_PREFIX = app_key("sidecar.browser.cdp_proxy.prefix", str)    # "" or "/cdp"
PROXY_KEEP_OPEN = app_key("sidecar.browser.cdp_proxy.keep_open", object)   # a KeepOpen
# The browser socket's id as handed out: the same whichever Chromium runs (ids change on restart).
BROWSER_SOCKET_ID = "desktopd"
_BROWSER_SOCKET = re.compile(r"/devtools/browser/[A-Za-z0-9_-]+")
# The kinds of DevTools sockets Chromium serves under /devtools/.
SOCKET_KINDS = ("page", "browser", "worker", "iframe", "shared_worker", "service_worker")


def _chromium_ws_url(request: web.Request) -> str:
    """Chromium's current browser socket (it moves when Chromium restarts)."""
    ws_url = request.app[PROXY_ORIGIN]()
    if not ws_url:
        raise unavailable("Chromium is starting or restarting", retry_after=1)
    return str(ws_url)


def _chromium_base(request: web.Request) -> str:
    """Chromium's current HTTP endpoint."""
    return f"http://{urlsplit(_chromium_ws_url(request)).netloc}"


def public_ws_base(request: web.Request) -> str:
    """ws://HOST:PORT[/cdp] of this proxy as the client reached it (its Host header, which the
    guard has already checked)."""
    return f"ws://{request.host}{request.app[PROXY_PREFIX]}"


def chromium_path(request: web.Request) -> str:
    """The request's path on Chromium's endpoint (whichever of the proxy's prefixes taken off)."""
    for prefix in sorted({request.app[PROXY_PREFIX], *CDP_PREFIXES}, key=len, reverse=True):
        if prefix and request.path.startswith(prefix + "/"):
            return request.path.removeprefix(prefix)
    return request.path or "/"


def _rewrite(value: object, chromium_netloc: str, public: str, token_query: str) -> object:
    """Chromium's ws:// URLs (and devtools front-end ws= parameters) pointed at this proxy, the
    browser socket at its stable id, and each ``webSocketDebuggerUrl`` with ``token_query``
    (the client's ``?token=`` when it gave one)."""
    if isinstance(value, list):
        return [_rewrite(item, chromium_netloc, public, token_query) for item in value]
    if isinstance(value, dict):
        rewritten = {key: _rewrite(item, chromium_netloc, public, token_query) for key, item in value.items()}
        if token_query and isinstance(rewritten.get("webSocketDebuggerUrl"), str):
            rewritten["webSocketDebuggerUrl"] = str(rewritten["webSocketDebuggerUrl"]) + token_query
        return rewritten
    if isinstance(value, str) and chromium_netloc in value:
        value = value.replace(f"ws://{chromium_netloc}", public).replace(
            f"ws={chromium_netloc}", "ws=" + public.removeprefix("ws://"))
        return _BROWSER_SOCKET.sub(f"/devtools/browser/{BROWSER_SOCKET_ID}", value)
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
    token = url_token(request)
    token_query = f"?{TOKEN_PARAM}={quote(token, safe='')}" if token else ""
    return web.json_response(_rewrite(body, urlsplit(base).netloc, public_ws_base(request), token_query))


async def devtools_socket(request: web.Request) -> web.StreamResponse:
    """A CDP WebSocket: messages pumped both ways until either side closes."""
    if request.match_info.get("kind") not in SOCKET_KINDS:
        raise ApiError(404, "not_found", f"no DevTools socket kind {request.match_info.get('kind')!r}; "
                                         f"one of {', '.join(SOCKET_KINDS)}")
    if not web.WebSocketResponse().can_prepare(request).ok:
        raise ApiError(400, "not_websocket", f"{request.path} is a CDP WebSocket: connect with a "
                                             "WebSocket client (Upgrade: websocket)")
    kind, target_id = request.match_info["kind"], request.match_info.get("id", "")
    chromium_ws = _chromium_ws_url(request)
    if kind == "browser":     # whatever id the client has: the browser running now
        target = chromium_ws
    else:
        target = f"ws://{urlsplit(chromium_ws).netloc}/devtools/{kind}/{target_id}"
    keeper = LastPageKeeper(request.app[PROXY_KEEP_OPEN], target_id if kind == "page" else None)
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
        pumps = [asyncio.ensure_future(_pump(client, upstream, keeper.before_sending)),
                 asyncio.ensure_future(_pump(upstream, client, _seen(keeper)))]
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


Inspect = Callable[[str], Awaitable[None]]


def _seen(keeper: LastPageKeeper) -> Inspect:
    async def inspect(data: str) -> None:
        keeper.saw_from_chromium(data)
    return inspect


async def _pump(source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
                sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse, inspect: Inspect) -> None:
    """Relays ``source`` to ``sink``; each text message is shown to ``inspect`` first (in order:
    the next waits while it does)."""
    async for message in source:
        if message.type == aiohttp.WSMsgType.TEXT:
            await inspect(message.data)
            await sink.send_str(message.data)
        elif message.type == aiohttp.WSMsgType.BINARY:
            await sink.send_bytes(message.data)
        else:                       # close or error: the other side is closed by the caller
            return


def proxy_app(settings: Settings, chromium_ws_url: ChromiumUrl, keep_open: KeepOpen) -> web.Application:
    host, _port = settings.expose_cdp or ("127.0.0.1", 0)
    app = web.Application(middlewares=[
        error_middleware,
        guard_middleware(guard_settings(host, settings.allowed_hosts, settings.allowed_origins)),
        token_auth_middleware(settings.token, public_paths=(), other_credential=url_token),
    ])
    app[PROXY_ORIGIN] = chromium_ws_url
    app[PROXY_PREFIX] = ""
    app[PROXY_KEEP_OPEN] = keep_open
    for path in LISTINGS:
        app.router.add_get(path, listing)
        app.router.add_get(path + "/", listing)
    app.router.add_get("/devtools/{kind}/{id}", devtools_socket)
    return app


def serve_proxy(settings: Settings, chromium_ws_url: ChromiumUrl, keep_open: KeepOpen
                ) -> Callable[[web.Application], AsyncIterator[None]]:
    """A cleanup context for the sidecar's app: the proxy listens while the sidecar runs."""

    async def context(_app: web.Application) -> AsyncIterator[None]:
        assert settings.expose_cdp is not None
        host, port = settings.expose_cdp
        runner = web.AppRunner(proxy_app(settings, chromium_ws_url, keep_open), handle_signals=False,
                               access_log_class=ProbeQuietAccessLogger)   # it redacts ?token=
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
