"""The aiohttp application factory."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from desktopd import app_keys
from desktopd.accessibility.context import accessibility_context
from desktopd.meta.health import WindowManagerReady
from desktopd.meta.openapi import build_openapi
from desktopd.osworld.app import osworld_context
from desktopd.routes import ROUTES, setup_routes
from desktopd.demonstration.session import Demonstrations
from desktopd.recording.recorder import ScreenRecorder
from desktopd.recording.retention import Retention
from desktopd.settings import Settings
from desktopd.settle.settler import Settler
from desktopd.settle.browser import sidecar_evidence
from desktopd.vision.reader import TextReader
from httpapi.deadlines import BODY_DEADLINE
from httpapi.guard import guard_middleware, guard_settings
from httpapi.lifetime import Limits, lifetime_middleware
from httpapi.middlewares import error_middleware, token_auth_middleware
from httpapi.routing import concurrency_limits, public_paths, text_bodies
from desktopd.backend.protocol import Backend, backend_errors, change_source_opener, open_backend
from desktopd.backend.service import BackendErrors, BackendService, real_x_errors

# Large enough for execute's stdin and big clipboard texts; bigger bodies get a JSON 413.
MAX_BODY_BYTES = 16 << 20
# Requests in handlers at once (429 beyond): input is serialised on the X thread anyway; the
# routes' own caps (Route.concurrency) bound the work that is not (commands, encoding, OCR).
MAX_CONCURRENT = 64


def init_app(settings: Settings, *, desktop_factory: Callable[[str], Backend] | None = None,
             x_errors: BackendErrors | None = None,
             settler_factory: Callable[[str], Settler] | None = None) -> web.Application:
    """``desktop_factory``/``x_errors``/``settler_factory`` exist for unit tests with a fake
    desktop; the service uses the real X layer."""
    app = web.Application(
        middlewares=[error_middleware,
                     guard_middleware(guard_settings(settings.host, settings.allowed_hosts,
                                                     settings.allowed_origins, text_bodies(ROUTES))),
                     token_auth_middleware(settings.token, public_paths=public_paths(ROUTES)),
                     lifetime_middleware(Limits(total=MAX_CONCURRENT, per_route=concurrency_limits(ROUTES)),
                                         public_paths(ROUTES))],
        client_max_size=MAX_BODY_BYTES,
    )
    app[app_keys.SETTINGS] = settings
    app[app_keys.VISION_MODELS] = settings.vision_models
    app[BODY_DEADLINE] = settings.body_deadline
    app[app_keys.STARTED_AT] = time.time()
    app[app_keys.WINDOW_MANAGER_READY] = WindowManagerReady()
    app[app_keys.ROUTES] = ROUTES
    app[app_keys.OPENAPI_BODY] = json.dumps(build_openapi(ROUTES))

    async def x_context(app: web.Application) -> AsyncIterator[None]:
        if desktop_factory is not None:
            desktop, errors = desktop_factory(settings.display), x_errors or real_x_errors()
        else:
            desktop = open_backend(settings.backend, settings.backend_display)
            errors = x_errors or backend_errors(settings.backend)
        service = BackendService(desktop, errors, settings.backend_display)
        app[app_keys.BACKEND] = service
        await service.start()  # does not fail when the display is not up yet
        yield
        await service.close()

    async def settle_context(app: web.Application) -> AsyncIterator[None]:
        app[app_keys.SETTLER] = (settler_factory(settings.backend_display) if settler_factory is not None
                             else Settler(settings.backend_display, change_source_opener(settings.backend)))
        if app[app_keys.SETTLER].browser is None:
            app[app_keys.SETTLER].browser = sidecar_evidence(settings.sidecar_url, settings.sidecar_token,
                                                         settings.sidecar_configured)
        await app[app_keys.SETTLER].start()   # does not fail without a display: reopened on demand
        yield
        await app[app_keys.SETTLER].close()

    async def recorder_context(app: web.Application) -> AsyncIterator[None]:
        recorder = ScreenRecorder(settings.display, settings.recording_dir,
                                  Retention(settings.recording_max_age, settings.recording_max_bytes))
        app[app_keys.RECORDER] = recorder
        sweeps = asyncio.create_task(recorder.sweep_forever())
        yield
        sweeps.cancel()
        await recorder.close()   # a recording still running is finished, not cut

    async def demonstration_context(app: web.Application) -> AsyncIterator[None]:
        app[app_keys.DEMONSTRATIONS] = Demonstrations(settings.display)   # X11 only: the X display
        yield
        await app[app_keys.DEMONSTRATIONS].close()

    async def vision_context(app: web.Application) -> AsyncIterator[None]:
        app[app_keys.TEXT_READER] = TextReader()   # the engine loads on the first read
        yield
        app[app_keys.TEXT_READER].close()

    app.cleanup_ctx.append(x_context)
    app.cleanup_ctx.append(settle_context)
    app.cleanup_ctx.append(recorder_context)
    app.cleanup_ctx.append(demonstration_context)
    app.cleanup_ctx.append(accessibility_context)
    app.cleanup_ctx.append(vision_context)
    if settings.osworld:   # last: it serves the parts the contexts above start
        app.cleanup_ctx.append(osworld_context)
    setup_routes(app)
    return app
