"""GET /health: open without a token; 200 when the X display answers, 503 (same body) when not."""

from __future__ import annotations

import time

from aiohttp import web

from desktopd import __version__, app_keys

from .common import backend_service


async def health(request: web.Request) -> web.Response:
    xs = backend_service(request)
    info = await xs.probe()
    started = request.app[app_keys.STARTED_AT]
    connected = info is not None and info.get("connected", True)
    body = {
        "status": "ok" if connected else "degraded",
        "version": __version__,
        "display": xs.display,
        "x_connected": connected,
        "x_state_since": xs.state_since,
        "screen": {"width": info.get("width"), "height": info.get("height")} if connected else None,
        "uptime_s": round(time.time() - started, 3),
        "x": info if connected else {"connected": False, "last_error": xs.last_error},
        "settle": request.app[app_keys.SETTLER].info(),
    }
    return web.json_response(body, status=200 if connected else 503)
