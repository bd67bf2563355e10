"""The service's own routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route

from . import health, openapi

ROUTES: list[Route] = [
    Route("GET", "/health", health.health, "Liveness and X connection state (no token needed)",
          "meta", uses_x=False, public=True,
          returns=health.HEALTH,
          description="200 while the X display answers; 503 with the same body while it does not."),
    Route("GET", "/api/v1/openapi.json", openapi.openapi_json, "This document", "meta", uses_x=False),
]
