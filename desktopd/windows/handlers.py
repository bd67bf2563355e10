"""GET /api/v1/tree and POST /api/v1/windows/{id}/{action}."""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

from desktopd import app_keys
from desktopd.app_keys import backend_service
from desktopd.backend.protocol import Backend
from desktopd.windows.i3tree import i3_tree
from desktopd.windows.models import ACTION_BODIES, TreeQuery
from desktopd_contract.windows import WindowInfo
from httpapi.bodies import optional_json_body
from httpapi.errors import invalid
from httpapi.json_types import JSONObject


def window_id(raw: str) -> int:
    """Decimal or 0x-hex, as xdotool and xwininfo print them."""
    try:
        value = int(raw, 0)
    except ValueError:
        raise invalid("id", f"expected a window id (decimal or 0x hex), got {raw!r}") from None
    if not 0 < value < 1 << 32:
        raise invalid("id", f"out of range: {raw!r}")
    return value


async def tree(request: web.Request, q: TreeQuery) -> web.Response:
    """?format=desktopd (ours) or i3 (the get_tree shape of i3/Sway IPC); the default is the
    DESKTOPD_TREE_FORMAT setting."""
    xs = backend_service(request)
    tree_format = q["format"] or request.app[app_keys.SETTINGS].tree_format

    native = getattr(xs.desktop, "native_tree", None)
    if tree_format == "i3" and native is not None:
        # Sway's own get_tree: the shape i3tree.py imitates for X11.
        return web.json_response(await xs.call(lambda desk: native()))

    def read(desk: Backend) -> tuple[Sequence[WindowInfo], JSONObject | None]:
        wm = desk.window_manager() if hasattr(desk, "window_manager") else None
        return desk.windows(), wm

    windows, wm = await xs.call(read)
    width, height = xs.screen or (None, None)
    if tree_format == "i3":
        return web.json_response(i3_tree(windows, (width, height), request.app[app_keys.SETTINGS].display))
    return web.json_response({"screen": {"width": width, "height": height},
                              "coordinate_space": "screen pixels", "window_manager": wm,
                              "windows": windows})


async def window(request: web.Request) -> web.Response:
    wid = window_id(request.match_info["id"])
    return web.json_response(await backend_service(request).call(lambda desk: desk.window(wid)))


def window_action_handler(action: str):
    model = ACTION_BODIES[action]

    async def handler(request: web.Request) -> web.Response:
        wid = window_id(request.match_info["id"])
        params = await optional_json_body(request, model)
        result = await backend_service(request).call(
            lambda desk: desk.window_action(wid, action, **params), field="body")
        return web.json_response({"ok": True, "id": wid, "action": action,
                                  **(result if isinstance(result, dict) else {})})

    handler.__name__ = f"window_{action}"
    return handler
