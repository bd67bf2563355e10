"""The original desktopd's routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body

from . import handlers
from .models import COMPAT_KEYBOARD_BODY, COMPAT_TABLET_BODY

ROUTES: list[Route] = [
    Route("POST", "/api/v1/tablet_event", with_body(COMPAT_TABLET_BODY, handlers.tablet_event),
          "Compatibility: the original desktopd's pointer events", "compat", success_status=204, success={}),
    Route("POST", "/api/v1/keyboard_event", with_body(COMPAT_KEYBOARD_BODY, handlers.keyboard_event),
          "Compatibility: the original desktopd's key events", "compat", success_status=204, success={}),
]
