"""The service's own routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route

from . import health, openapi

HEALTH = {"type": "object", "properties": {
    "status": {"enum": ["ok", "degraded", "starting"],
               "description": "starting: the display answers, but the desktop's window manager "
                              "(DESKTOPD_WINDOW_MANAGER) does not run yet or no window has the keyboard."},
    "version": {"type": "string"},
    "display": {"type": "string"}, "x_connected": {"type": "boolean"},
    "x_state_since": {"type": "number", "description": "Unix time of the last connect/disconnect."},
    "screen": {"type": ["object", "null"]}, "uptime_s": {"type": "number"},
    "x": {"type": "object", "description": "X layer details (extensions, capture backend, errors)."},
    "settle": {"type": "object", "description": "The damage watcher settles rely on: watching, last_error.",
               "properties": {"watching": {"type": "boolean"}, "last_error": {"type": ["string", "null"]}}}}}

ROUTES: list[Route] = [
    Route("GET", "/health", health.health, "Liveness and X connection state (no token needed)",
          "meta", uses_x=False, public=True,
          success={"application/json": {"schema": HEALTH}},
          description="200 while the X display answers; 503 with the same body while it does not."),
    Route("GET", "/api/v1/openapi.json", openapi.openapi_json, "This document", "meta", uses_x=False),
]
