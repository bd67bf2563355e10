"""POST /api/v1/keyboard: Unicode text, xdotool-style key combos, and raw key events (run by
desktopd/input/keystrokes.py)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from desktopd.input.keystrokes import run_keyboard

from .common import backend_service


async def keyboard(request: web.Request, body: dict[str, Any]) -> web.Response:
    return web.json_response(await run_keyboard(backend_service(request), body))
