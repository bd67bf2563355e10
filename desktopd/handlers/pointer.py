"""POST /api/v1/tablet: pointer events, one or a batch, in screen pixels (run by
desktopd/input/pointer_events.py)."""

from __future__ import annotations

from aiohttp import web

from desktopd.input.pointer_events import run_pointer_body
from httpapi.errors import read_json_object

from .common import backend_service


async def tablet(request: web.Request) -> web.Response:
    body = await read_json_object(request)
    return web.json_response(await run_pointer_body(backend_service(request), body))
