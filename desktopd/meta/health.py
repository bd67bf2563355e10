"""GET /health: open without a token; 200 when the X display answers, 503 (same body) when not."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict

from aiohttp import web

from desktopd import __version__, app_keys
from desktopd.app_keys import backend_service
from desktopd.settle.settler import SettlerInfo
from httpapi.fields import F, Bool, Enum, Nullable, Number, Opaque, Str
from httpapi.json_types import JSONObject
from httpapi.responses import ResponseModel, TypedResponse


class Health(TypedDict):
    status: Literal["ok", "degraded", "starting"]
    version: str
    display: str
    x_connected: bool
    x_state_since: float
    screen: dict[str, object] | None
    uptime_s: float
    x: Mapping[str, object]
    settle: SettlerInfo


SETTLE_WATCHER = ResponseModel("SettleWatcher", [
    F("watching", Bool()), F("last_error", Nullable(Str())),
])
HEALTH = TypedResponse(ResponseModel("Health", [
    F("status", Enum(["ok", "degraded", "starting"], typed=False),
      description="starting: the display answers, but the desktop's window manager "
                  "(DESKTOPD_WINDOW_MANAGER) does not run yet or no window has the keyboard."),
    F("version", Str()),
    F("display", Str()), F("x_connected", Bool()),
    F("x_state_since", Number(), description="Unix time of the last connect/disconnect."),
    F("screen", Nullable(Opaque("object"))), F("uptime_s", Number()),
    F("x", Opaque("object"), description="X layer details (extensions, capture backend, errors)."),
    F("settle", SETTLE_WATCHER, description="The damage watcher settles rely on: watching, last_error."),
]), Health)


@dataclass
class WindowManagerReady:
    """Whether the desktop's window manager was seen running with a window focused (a latch)."""

    ready: bool = False


async def health(request: web.Request) -> web.Response:
    xs = backend_service(request)
    info = await xs.probe()
    started = request.app[app_keys.STARTED_AT]
    connected = info is not None and bool(info.get("connected", True))
    ready = connected and window_manager_ready(request, info or {})
    body: Health = {
        "status": "ok" if ready else "degraded" if not connected else "starting",
        "version": __version__,
        "display": xs.display,
        "x_connected": connected,
        "x_state_since": xs.state_since,
        "screen": {"width": info.get("width"), "height": info.get("height")} if connected else None,
        "uptime_s": round(time.time() - started, 3),
        "x": info if connected and info is not None else {"connected": False, "last_error": xs.last_error},
        "settle": request.app[app_keys.SETTLER].info(),
    }
    return HEALTH.response(body, status=200 if ready else 503)


def window_manager_ready(request: web.Request, info: JSONObject) -> bool:
    """With a window manager in this desktop (DESKTOPD_WINDOW_MANAGER): once it runs and, when
    windows are open (or a sidecar's browser will open one), one holds the keyboard; before, a
    first step's keys could go nowhere (a window manager that starts after the browser's window
    takes it over unfocused). Once true, it stays true: a person may later focus no window."""
    state = request.app[app_keys.WINDOW_MANAGER_READY]
    if state.ready or not request.app[app_keys.SETTINGS].window_manager:
        return True
    wm = info.get("window_manager")
    if not isinstance(wm, dict):
        return True          # a backend that does not report one (Sway is its own compositor)
    # With a sidecar its browser's window is coming: wait for it rather than latch on none.
    windows_expected = bool(wm.get("windows")) or request.app[app_keys.SETTINGS].sidecar_configured
    state.ready = bool(wm.get("managed")) and (not windows_expected or wm.get("active") is not None)
    return state.ready
