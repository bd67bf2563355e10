"""The OSWorld API's aiohttp app, served on its own port by the desktopd process: it shares the
main app's X service, recorder, accessibility service and settings (one of each per desktop)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

from aiohttp import web

from desktopd import keys
from httpapi.deadlines import BODY_DEADLINE
from httpapi.guard import guard_middleware, guard_settings
from httpapi.lifetime import Limits, lifetime_middleware
from httpapi.middlewares import error_middleware

from .bodies import FORM_TYPES
from .routes import FORM_BODY_ROUTES, setup_osworld_routes

# Uploads are task files (documents, profiles, databases): larger than desktopd's JSON bodies.
MAX_BODY_BYTES = 1 << 30
MAX_CONCURRENT = 32
SHARED_KEYS = (keys.SETTINGS, keys.XSERVICE, keys.RECORDER, keys.ACCESSIBILITY)


def init_osworld_app(main: web.Application) -> web.Application:
    """The app over ``main``'s parts (call once main's cleanup contexts have started them)."""
    settings = main[keys.SETTINGS]
    forms = {route: FORM_TYPES for route in FORM_BODY_ROUTES}
    app = web.Application(
        middlewares=[error_middleware,
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
    settings = main[keys.SETTINGS]
    runner = web.AppRunner(init_osworld_app(main), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.osworld_port)
    await site.start()
    print(f"desktopd OSWorld API listening on http://{settings.host}:{settings.osworld_port} "
          "(no token)", file=sys.stderr, flush=True)
    yield
    await runner.cleanup()
