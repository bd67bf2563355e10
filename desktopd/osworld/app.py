"""The OSWorld API's aiohttp app, served on its own port by the desktopd process: it shares the
main app's X service, recorder, accessibility service and settings (one of each per desktop)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

from aiohttp import web

from desktopd import app_keys
from httpapi.api_error import unavailable
from httpapi.deadlines import BODY_DEADLINE
from httpapi.guard import guard_middleware, guard_settings
from httpapi.lifetime import Limits, lifetime_middleware
from httpapi.middlewares import error_middleware

from .bodies import FORM_TYPES
from .chrome_after_reset import settle_at_start
from .routes import FORM_BODY_ROUTES, setup_osworld_routes

# Uploads are task files (documents, profiles, databases): larger than desktopd's JSON bodies.
MAX_BODY_BYTES = 1 << 30
MAX_CONCURRENT = 32
SHARED_KEYS = (app_keys.SETTINGS, app_keys.BACKEND, app_keys.RECORDER, app_keys.ACCESSIBILITY)
# Served while the desktop starts (a client finds what the API is).
ALWAYS_SERVED = frozenset({"/openapi.json"})


def starting_middleware(ready: asyncio.Event):
    """503 (Retry-After: 1) until ``ready``: OSWorld's clients wait for /screenshot to answer."""
    @web.middleware
    async def starting(request: web.Request, handler) -> web.StreamResponse:
        if not ready.is_set() and request.path not in ALWAYS_SERVED:
            raise unavailable("the desktop is starting (the browser's profile is being set up)",
                              retry_after=1)
        return await handler(request)
    return starting


def init_osworld_app(main: web.Application, ready: asyncio.Event) -> web.Application:
    """The app over ``main``'s parts (call once main's cleanup contexts have started them);
    it answers once ``ready`` is set."""
    settings = main[app_keys.SETTINGS]
    forms = {route: FORM_TYPES for route in FORM_BODY_ROUTES}
    app = web.Application(
        middlewares=[error_middleware, starting_middleware(ready),
                     # No token (OSWorld's client has none); the browser guard as everywhere.
                     guard_middleware(guard_settings(settings.host, settings.allowed_hosts,
                                                     settings.allowed_origins, forms)),
                     lifetime_middleware(Limits(total=MAX_CONCURRENT, per_route={}))],
        client_max_size=MAX_BODY_BYTES)
    for key in SHARED_KEYS:
        app[key] = main[key]
    app[BODY_DEADLINE] = settings.body_deadline
    setup_osworld_routes(app)
    return app


async def osworld_context(main: web.Application) -> AsyncIterator[None]:
    """A cleanup context of desktopd's app: serves the OSWorld API while desktopd runs."""
    settings = main[app_keys.SETTINGS]
    ready = asyncio.Event()
    runner = web.AppRunner(init_osworld_app(main, ready), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.osworld_port)
    await site.start()
    print(f"desktopd OSWorld API listening on http://{settings.host}:{settings.osworld_port} "
          "(no token)", file=sys.stderr, flush=True)

    async def settle() -> None:
        try:
            await settle_at_start(settings)
        finally:
            ready.set()
    settling = asyncio.get_running_loop().create_task(settle())
    yield
    settling.cancel()
    await runner.cleanup()
