"""POST /api/v1/tablet: pointer events, one or a batch, in screen pixels (run by
desktopd/input/pointer_events.py); POST /api/v1/keyboard: Unicode text, xdotool-style key combos,
and raw key events (run by desktopd/input/keystrokes.py)."""

from __future__ import annotations

from aiohttp import web

from desktopd.app_keys import backend_service
from desktopd.input.keystrokes import run_keyboard
from desktopd.input.pointer_events import run_pointer_body
from httpapi.errors import read_json_object
from httpapi.json_types import JSONObject


async def tablet(request: web.Request) -> web.Response:
    body = await read_json_object(request)
    return web.json_response(await run_pointer_body(backend_service(request), body))


async def keyboard(request: web.Request, body: JSONObject) -> web.Response:
    return web.json_response(await run_keyboard(backend_service(request), body))
