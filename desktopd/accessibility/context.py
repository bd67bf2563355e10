"""The accessibility service's life on the app: created with it (no bus is opened until the first
request), closed with it."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from desktopd import app_keys

from .bus import AtspiBus
from .merge import LayoutSource
from .service import AccessibilityService


async def accessibility_context(app: web.Application) -> AsyncIterator[None]:
    settings = app[app_keys.SETTINGS]
    service = AccessibilityService(AtspiBus(), LayoutSource(settings.sidecar_url, settings.sidecar_token))
    app[app_keys.ACCESSIBILITY] = service
    yield
    await service.close()
