"""The sidecar's aiohttp application factory."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from aiohttp import web

from httpapi.deadlines import BODY_DEADLINE
from httpapi.guard import guard_middleware, guard_settings
from httpapi.lifetime import Limits, lifetime_middleware
from httpapi.middlewares import Handler, error_middleware, token_auth_middleware
from httpapi.routing import concurrency_limits, public_paths

from . import app_keys as keys
from ..browser.cdp_proxy import PROXY_KEEP_OPEN, PROXY_ORIGIN, PROXY_PREFIX, serve_proxy
from ..browser.cdp_url_token import url_token
from ..browser.start_pages import serve_start_pages
from ..browser.supervisor import ChromiumSupervisor
from ..errors import DOMAIN_ERRORS, as_api_error
from ..agent.pointer import desktopd_client
from ..mcp.http_mount import LazyMcp, SelfAddress, StarletteLike, serve_mcp
from .routes import ROUTES, setup_routes
from ..settings import Settings
from .shared_reads import SharedReads
from .state_routes import HAR_SLOT, HarSlot
from .settle_evidence import TRACKERS, Trackers

if TYPE_CHECKING:   # imported at the first /mcp request, not at start (http_mount.LazyMcp)
    from ..mcp.backends import Backends

# Where the MCP tools reach desktopd unless SIDECAR_DESKTOPD_URL says: in the images, the same
# container.
DEFAULT_DESKTOPD_URL = "http://127.0.0.1:8080"
MAX_BODY_BYTES = 1 << 20   # request bodies are small JSON objects (a URL, a flag)
# Requests in handlers at once (429 beyond); full reads of every tab are the expensive ones,
# capped further by their routes (Route.concurrency).
MAX_CONCURRENT = 64


@web.middleware
async def domain_error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The browser's and the layout's failures in their HTTP form (sidecar/errors.py, the one
    table), never a 500."""
    try:
        return await handler(request)
    except DOMAIN_ERRORS as exc:
        raise as_api_error(exc) from None


def init_app(settings: Settings) -> web.Application:
    app = web.Application(
        middlewares=[error_middleware,
                     guard_middleware(guard_settings(settings.host, settings.allowed_hosts,
                                                     settings.allowed_origins)),
                     token_auth_middleware(settings.token, public_paths=public_paths(ROUTES),
                                           other_credential=url_token),
                     lifetime_middleware(Limits(total=MAX_CONCURRENT, per_route=concurrency_limits(ROUTES)),
                                         public_paths(ROUTES)),
                     domain_error_middleware],
        client_max_size=MAX_BODY_BYTES,
    )
    app[keys.SETTINGS] = settings
    app[BODY_DEADLINE] = settings.body_deadline
    app[keys.LAYOUT_READS] = SharedReads()
    app[HAR_SLOT] = HarSlot()
    app[TRACKERS] = Trackers()   # settle_evidence.py's tracker, early in new documents

    async def chromium_context(app: web.Application) -> AsyncIterator[None]:
        supervisor = ChromiumSupervisor(settings)
        app[keys.SUPERVISOR] = supervisor
        await supervisor.start()      # launches in the background; /health says "starting"
        yield
        await supervisor.stop()       # Chromium stops with the app

    if settings.start_pages_dir is not None:      # served before Chromium opens them
        app.cleanup_ctx.append(serve_start_pages(settings.start_pages_dir, settings.start_pages_port))
    app.cleanup_ctx.append(chromium_context)

    def chromium_ws_url() -> str | None:
        chromium = app[keys.SUPERVISOR].chromium
        return chromium.ws_url if chromium is not None else None

    async def keep_browser_open(target_id: str) -> None:
        """Before a CDP client closes ``target_id``: a blank neighbour if it is the last page."""
        await app[keys.SUPERVISOR].current().tracker.open_neighbour_if_last(target_id)

    # /cdp on this port (routes.py) and, with --expose-cdp, the same proxy on a port of its own.
    app[PROXY_ORIGIN] = chromium_ws_url
    app[PROXY_PREFIX] = "/cdp"
    app[PROXY_KEEP_OPEN] = keep_browser_open

    async def desktopd_context(app: web.Application) -> AsyncIterator[None]:
        client = (desktopd_client(settings.desktopd_url, settings.desktopd_token)
                  if settings.desktopd_url else None)
        app[keys.DESKTOPD] = client
        yield
        if client is not None:
            await client.close()

    app.cleanup_ctx.append(desktopd_context)
    if settings.expose_cdp is not None:
        app.cleanup_ctx.append(serve_proxy(settings, chromium_ws_url, keep_browser_open))
    _mount_mcp(app, settings)
    setup_routes(app)
    return app


def _mount_mcp(app: web.Application, settings: Settings) -> None:
    """The MCP server at /mcp when the `mcp` package is installed (the `agent` extra; the images
    have it), built at its first request (http_mount.LazyMcp); without it /mcp answers 501."""
    if importlib.util.find_spec("mcp") is None:
        return
    self_address = SelfAddress(f"http://127.0.0.1:{settings.port}")
    made: list[Backends] = []

    def build() -> StarletteLike:
        from ..mcp.backends import Backends
        from ..mcp.tools import build_server

        backends = Backends(self_address, settings.desktopd_url or DEFAULT_DESKTOPD_URL,
                            settings.desktopd_token or settings.token)
        made.append(backends)
        return build_server(backends).streamable_http_app()

    serve_mcp(app, LazyMcp(("sidecar.mcp.backends", "sidecar.mcp.tools"), build), self_address)

    async def close_backends(app: web.Application) -> None:
        for backends in made:
            await backends.close()

    app.on_cleanup.append(close_backends)
