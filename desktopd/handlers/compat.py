"""The original desktopd's endpoints, served unchanged: POST /api/v1/tablet_event and
/api/v1/keyboard_event, answering 204 No Content."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from desktopd.models import COMPAT_KEYBOARD_BODY, COMPAT_TABLET_BODY

from .common import json_body, xservice
from .keyboard import run_key_events
from .pointer import run_pointer_events


def as_pointer_event(event: dict[str, Any]) -> dict[str, Any]:
    return {"action": event["type"], "x": event["x"], "y": event["y"], "button": event["button"],
            "clicks": 1, "path": None, "duration_ms": 0, "dx": event["dx"], "dy": event["dy"],
            "modifiers": []}


async def tablet_event(request: web.Request) -> web.Response:
    events = (await json_body(request, COMPAT_TABLET_BODY))["events"]
    await run_pointer_events(xservice(request), [as_pointer_event(e) for e in events],
                             [f"events[{i}]" for i in range(len(events))])
    return web.Response(status=204)


async def keyboard_event(request: web.Request) -> web.Response:
    events = (await json_body(request, COMPAT_KEYBOARD_BODY))["events"]
    await run_key_events(xservice(request), events, 0.0)
    return web.Response(status=204)
