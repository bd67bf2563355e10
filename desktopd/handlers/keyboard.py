"""POST /api/v1/keyboard: Unicode text, xdotool-style key combos, and raw key events (run by
desktopd/input/keystrokes.py)."""

from __future__ import annotations

from aiohttp import web

from desktopd.input.keystrokes import run_keyboard
from desktopd.models import KEYBOARD_BODY

from .common import json_body, backend_service


async def keyboard(request: web.Request) -> web.Response:
    body = await json_body(request, KEYBOARD_BODY)
    return web.json_response(await run_keyboard(backend_service(request), body))
