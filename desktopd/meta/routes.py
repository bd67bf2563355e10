"""The service's own routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.fields import F, Bool, Enum, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route

from . import health, openapi

SETTLE_WATCHER = ResponseModel("SettleWatcher", [
    F("watching", Bool()), F("last_error", Nullable(Str())),
])
HEALTH = ResponseModel("Health", [
    F("status", Enum(["ok", "degraded", "starting"], typed=False),
      description="starting: the display answers, but the desktop's window manager "
                  "(DESKTOPD_WINDOW_MANAGER) does not run yet or no window has the keyboard."),
    F("version", Str()),
    F("display", Str()), F("x_connected", Bool()),
    F("x_state_since", Number(), description="Unix time of the last connect/disconnect."),
    F("screen", Nullable(Opaque("object"))), F("uptime_s", Number()),
    F("x", Opaque("object"), description="X layer details (extensions, capture backend, errors)."),
    F("settle", SETTLE_WATCHER, description="The damage watcher settles rely on: watching, last_error."),
])

ROUTES: list[Route] = [
    Route("GET", "/health", health.health, "Liveness and X connection state (no token needed)",
          "meta", uses_x=False, public=True,
          returns=HEALTH,
          description="200 while the X display answers; 503 with the same body while it does not."),
    Route("GET", "/api/v1/openapi.json", openapi.openapi_json, "This document", "meta", uses_x=False),
]
