"""The original desktopd's endpoints, served unchanged: POST /api/v1/tablet_event and
/api/v1/keyboard_event, answering 204 No Content."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from desktopd.app_keys import backend_service
from desktopd.input.keystrokes import run_key_events
from desktopd.input.pointer_events import check_key_names, check_on_screen, run_pointer_events


def as_pointer_event(event: dict[str, Any]) -> dict[str, Any]:
    return {"action": event["type"], "x": event["x"], "y": event["y"], "button": event["button"],
            "clicks": 1, "path": None, "duration_ms": 0, "dx": event["dx"], "dy": event["dy"],
            "modifiers": []}


# Events per X job: a long batch never holds the X thread for long (other requests interleave,
# in order of arrival), and a client that hangs up stops it at the next chunk.
CHUNK = 500


def chunks(count: int) -> range:
    return range(0, count, CHUNK)


async def tablet_event(request: web.Request, body: dict[str, Any]) -> web.Response:
    events = [as_pointer_event(e) for e in body["events"]]
    prefixes = [f"events[{i}]" for i in range(len(events))]
    xs = backend_service(request)
    # Every point checked before the first event goes out: a bad one fails the batch, not half of it.
    check_on_screen(events, prefixes, await xs.screen_size())
    for start in chunks(len(events)):
        await run_pointer_events(xs, events[start:start + CHUNK], prefixes[start:start + CHUNK])
    return web.Response(status=204)


async def keyboard_event(request: web.Request, body: dict[str, Any]) -> web.Response:
    events = body["events"]
    xs = backend_service(request)
    # Every key name checked before the first event goes out: a typo fails the batch, not half of it.
    await xs.call(check_key_names, [(f"events[{i}].keysym", e["keysym"]) for i, e in enumerate(events)
                                    if isinstance(e["keysym"], str)])
    for start in chunks(len(events)):
        await run_key_events(xs, events[start:start + CHUNK], 0.0)
    return web.Response(status=204)
