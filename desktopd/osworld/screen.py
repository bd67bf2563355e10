"""What OSWorld reads of the screen: /screenshot, /screen_size, /cursor_position, /window_size,
/accessibility, /terminal, /platform; all through desktopd's X service and AT-SPI reader."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import TypedDict

from aiohttp import web

from desktopd import app_keys
from desktopd.screen import imaging
from desktopd.accessibility.bus import BusUnavailable
from desktopd.accessibility.service import TreeAnswer, TreeQuery
from desktopd.app_keys import backend_service
from desktopd.accessibility.snapshot import Node
from desktopd_contract.windows import WindowInfo
from httpapi.bodies import Typed
from httpapi.errors import not_found, unavailable
from httpapi.fields import F, Bool, Int, ListOf, Model, Nullable, Opaque, Str
from httpapi.responses import ResponseModel, TypedResponse

from .atspi_xml import osworld_xml
from .bodies import body_fields



class OsworldWindowSize(TypedDict):
    app_class_name: str


WINDOW_SIZE_BODY = Typed(Model("OsworldWindowSize", [
    F("app_class_name", Str(min_length=1, max_length=500), required=True,
      description="A WM_CLASS part (instance or class), case-insensitive."),
]), OsworldWindowSize)


class ScreenSize(TypedDict):
    width: int
    height: int


class TerminalText(TypedDict):
    output: str | None
    status: str


SCREEN_SIZE = TypedResponse(ResponseModel("OsworldScreenSize", [F("width", Int()), F("height", Int())]),
                            ScreenSize)
ACCESSIBILITY = ResponseModel("OsworldAccessibility", [
    F("AT", Str()), F("complete", Bool()), F("pending", ListOf(Opaque("object"))),
])
TERMINAL = TypedResponse(ResponseModel("OsworldTerminal", [F("output", Nullable(Str())), F("status", Str())]),
                         TerminalText)
TREE_SECONDS = 10.0
# While the desktop starts (the browser or XFCE not yet on the accessibility bus) the tree is read
# again for this long before it is given as it is, with complete false.
COMPLETE_WITHIN_S = 10.0
REREAD_S = 0.25


async def screenshot(request: web.Request) -> web.Response:
    image = await backend_service(request).call(lambda desk: desk.capture(None, True))
    out = await asyncio.get_running_loop().run_in_executor(
        None, imaging.render, image, "png", None, {})
    return web.Response(body=out.body, content_type="image/png", headers={"Cache-Control": "no-store"})


async def screen_size(request: web.Request) -> web.Response:
    width, height = await backend_service(request).screen_size()
    return SCREEN_SIZE.response({"width": width, "height": height})


async def cursor_position(request: web.Request) -> web.Response:
    x, y = await backend_service(request).call(lambda desk: desk.pointer_position())
    return web.json_response([x, y])


async def window_size(request: web.Request) -> web.Response:
    wanted = (await body_fields(request, WINDOW_SIZE_BODY))["app_class_name"].lower()
    for window in await backend_service(request).call(lambda desk: desk.windows()):
        if wanted in (part.lower() for part in window.get("wm_class") or [] if part is not None):
            client = window["client"]
            return web.json_response({"width": client["width"], "height": client["height"]})
    raise not_found(f"no window of class {wanted!r}")


async def platform(request: web.Request) -> web.Response:
    return web.Response(text="Linux")


async def _tree(request: web.Request) -> TreeAnswer:
    """desktopd's tree (its JSON); the page's nodes merged from the sidecar when there is one."""
    async def windows() -> Sequence[WindowInfo]:
        return await backend_service(request).call(lambda desk: desk.windows())
    try:
        # With a sidecar, the page's nodes come from its /layout (Chromium's AT-SPI cache often
        # lacks them): an agent sees the web content it is asked to act on.
        merge = request.app[app_keys.SETTINGS].sidecar_configured
        return await request.app[app_keys.ACCESSIBILITY].tree(
            TreeQuery(seconds=TREE_SECONDS, merge_browser=merge), windows)
    except BusUnavailable as exc:
        raise unavailable(f"the accessibility bus is not available: {exc}", retry_after=1) from None


async def _applications(request: web.Request) -> list[Node]:
    return list((await _tree(request))["applications"])


async def accessibility(request: web.Request) -> web.Response:
    """OSWorld's {"AT": xml}, and beside it whether the tree is complete: read again while the
    desktop starts (an agent's first observation would otherwise hold the desktop without its
    windows), at most COMPLETE_WITHIN_S."""
    deadline = asyncio.get_running_loop().time() + COMPLETE_WITHIN_S
    tree = await _tree(request)
    while not tree["complete"] and asyncio.get_running_loop().time() + REREAD_S < deadline:
        await asyncio.sleep(REREAD_S)
        tree = await _tree(request)
    return web.json_response({"AT": osworld_xml(tree["applications"]), "complete": tree["complete"],
                              "pending": tree["pending"]})


def _walk(nodes: list[Node]) -> Iterator[Node]:
    for node in nodes:
        yield node
        yield from _walk(node.get("children") or [])


async def terminal(request: web.Request) -> web.Response:
    """The text of the focused terminal in the active window, or null (as OSWorld's server)."""
    output = None
    for app in await _applications(request):
        for frame in app.get("children") or []:
            if "active" not in (frame.get("states") or []):
                continue
            focused = [node for node in _walk([frame]) if node.get("role") == "terminal"
                       and "focused" in (node.get("states") or [])]
            if len(focused) == 1 and focused[0].get("value") is not None:
                output = str(focused[0]["value"]).rstrip()
    return TERMINAL.response({"output": output, "status": "success"})
