"""The Anthropic format's server side (its declaration: formats/anthropic.py): each tool action as
desktopd input, and POST/GET /api/v1/computer/anthropic, answered as the reference implementation
(anthropic-quickstarts, computer-use-demo) answers: every action but cursor_position ends with a
screenshot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence

from aiohttp import web

from httpapi.routing import with_query

from desktopd.app_keys import settler, backend_service
from httpapi.bodies import json_body
from desktopd.settle.settler import SETTLE_FIELDS, SETTLED, SettleSpec, settled_capture, skipped
from desktopd.settle.browser import Clicks
from desktopd.backend.service import BackendService
from desktopd_contract.vendor_format import Action, JSONObject
from httpapi.errors import invalid
from httpapi.fields import Bool, Const, Enum, F, Int, ListOf, Model, Nullable, OneOf, Opaque, Str
from httpapi.responses import ResponseModel

from .. import steps
from ..display import (
    DISPLAY_FIELDS,
    SCREENSHOT_FIELD,
    Display,
    b64,
    display_of,
    display_pair,
    model_screenshot,
    screenshot_png,
)
from desktopd_contract.formats.anthropic import ACTIONS, CLICKS, LOOKS, SCROLL_DIRECTIONS
from ..vendor_format import Endpoint, FormatServer, Performed

TOOL_VERSIONS = ("computer_20250124", "computer_20251124")

ACTION_QUERY = Model("AnthropicActionQuery", [*DISPLAY_FIELDS, SCREENSHOT_FIELD, *SETTLE_FIELDS],
                     check=display_pair)
TOOL_QUERY = Model("AnthropicToolQuery", [
    *DISPLAY_FIELDS,
    F("version", Enum(TOOL_VERSIONS), default=TOOL_VERSIONS[0], description="The tool type."),
], check=display_pair)

TEXT_BLOCK = ResponseModel("AnthropicTextBlock", [
    F("type", Const("text", typed=False)), F("text", Str()),
])
IMAGE_BLOCK = ResponseModel("AnthropicImageBlock", [
    F("type", Const("image", typed=False)),
    F("source", ResponseModel("AnthropicImageSource", [
        F("type", Const("base64", typed=False)), F("media_type", Const("image/png", typed=False)),
        F("data", Str()),
    ])),
])
RESULT = ResponseModel("AnthropicToolResult", [
    F("content", ListOf(OneOf([TEXT_BLOCK, IMAGE_BLOCK])), required=True,
      description="The tool_result's content blocks."),
    F("action", Str()),
    F("executed", Opaque("object"), description="What ran, in screen pixels."),
    F("settled", SETTLED),
    F("screen", Opaque("object")), F("display", Opaque("object")),
])
TOOL_DEFINITION = ResponseModel("AnthropicToolDefinition", [
    F("type", Enum(TOOL_VERSIONS, typed=False)), F("name", Const("computer", typed=False)),
    F("display_width_px", Int()), F("display_height_px", Int()),
    F("display_number", Nullable(Int())), F("enable_zoom", Bool()),
])

def _point(display: Display, value: list[int] | None, field: str) -> tuple[int, int] | None:
    return None if value is None else _required_point(display, value, field)


def _required_point(display: Display, value: list[int], field: str) -> tuple[int, int]:
    return display.to_screen(value[0], value[1], field)


def _zoom_region(display: Display, region: list[int]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = region
    if x1 <= x0 or y1 <= y0:
        raise invalid("region", "needs x0 < x1 and y0 < y1")
    if x1 > display.advertised[0] or y1 > display.advertised[1]:
        raise invalid("region", f"{region} leaves the {display.advertised[0]}x{display.advertised[1]} display")
    sx0 = round(x0 * display.screen[0] / display.advertised[0])
    sy0 = round(y0 * display.screen[1] / display.advertised[1])
    sx1 = max(sx0 + 1, round(x1 * display.screen[0] / display.advertised[0]))
    sy1 = max(sy0 + 1, round(y1 * display.screen[1] / display.advertised[1]))
    return sx0, sy0, sx1 - sx0, sy1 - sy0


async def perform(xs: BackendService, display: Display, act: Action, where: str = "") -> Performed:
    """Run one action; returns what ran (screen pixels) and any text for the model. Errors name
    the tool input's own fields (``where`` is not prefixed: the reference's errors read so)."""
    action = act["action"]
    executed: JSONObject = {}
    text_out: str | None = None
    if action == "key":
        await steps.keys(xs, act["text"], "text")
        executed["keys"] = act["text"]
    elif action == "type":
        await steps.type_text(xs, act["text"])
        executed["typed"] = len(act["text"])
    elif action == "mouse_move":
        to = _required_point(display, act["coordinate"], "coordinate")
        modifiers = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", m) for m in modifiers])
        executed["x"], executed["y"] = await steps.move(xs, to, modifiers)
    elif action in CLICKS:
        at = _point(display, act["coordinate"], "coordinate")
        where = "text" if act["text"] else "key"
        modifiers = steps.modifier_names(act["text"] or act["key"], where)
        await steps.check_keys(xs, [(where, m) for m in modifiers])
        button, count = CLICKS[action]
        executed["x"], executed["y"] = await steps.click(xs, at, button, count, modifiers)
        executed.update(button=button, clicks=count, modifiers=list(modifiers))
    elif action == "left_click_drag":
        end = _required_point(display, act["coordinate"], "coordinate")
        start = _point(display, act["start_coordinate"], "start_coordinate") \
            or await steps.pointer_position(xs)
        modifiers = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", m) for m in modifiers])
        executed["x"], executed["y"] = await steps.drag(xs, [start, end], modifiers)
        executed["start"] = list(start)
    elif action in ("left_mouse_down", "left_mouse_up"):
        at = _point(display, act["coordinate"], "coordinate")
        executed["x"], executed["y"] = await steps.button(xs, at, action == "left_mouse_down")
    elif action == "scroll":
        at = _point(display, act["coordinate"], "coordinate")
        modifiers = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", m) for m in modifiers])
        ux, uy = SCROLL_DIRECTIONS[act["scroll_direction"]]
        amount = act["scroll_amount"]
        executed["x"], executed["y"] = await steps.scroll(xs, at, ux * amount, uy * amount, modifiers)
        executed.update(dx=ux * amount, dy=uy * amount, modifiers=list(modifiers))
    elif action == "hold_key":
        names = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", n) for n in names])
        await steps.hold(xs, names, act["duration"])
        executed.update(keys=list(names), seconds=act["duration"])
    elif action == "wait":
        await asyncio.sleep(act["duration"])
        executed["seconds"] = act["duration"]
    elif action == "cursor_position":
        x, y = await steps.pointer_position(xs)
        executed["x"], executed["y"] = x, y
        dx, dy = display.from_screen(x, y)
        text_out = f"X={dx},Y={dy}"
    elif action == "zoom":
        executed["region"] = list(_zoom_region(display, act["region"]))
    return Performed(executed, text_out)


def clicks(acts: Sequence[Action], started: float) -> Clicks | None:
    """A left, double or triple click with no modifier keys held (text, key): a shift-click may be
    a browser gesture (a new window)."""
    act = acts[0] if len(acts) == 1 else {}
    count = {"left_click": 1, "double_click": 2, "triple_click": 3}.get(str(act.get("action")))
    return Clicks(started, count) if count and not act.get("text") and not act.get("key") else None


async def computer_action(request: web.Request, q: Mapping[str, object]) -> web.Response:
    act = await json_body(request, ACTIONS)
    xs = backend_service(request)
    display = await display_of(xs, q)
    started = time.monotonic()
    done = await perform(xs, display, act)
    mark = await settler(request).mark()
    settled = skipped(SettleSpec.of(q))
    content: list[JSONObject] = []
    if done.text is not None:
        content.append({"type": "text", "text": done.text})
    action = act["action"]
    if action == "zoom":
        x, y, width, height = _zoom_region(display, act["region"])   # as perform checked it
        png = await screenshot_png(xs, None, (x, y, width, height))
        content.append(_image(png))
    elif action != "cursor_position" and (q["screenshot"] or action == "screenshot"):
        capture = settler(request).reusing(("model png", display.advertised if display.scaled else None),
                                           model_screenshot(xs, display))
        if action in LOOKS:
            png = await capture()
        else:
            png, settled = await settled_capture(settler(request), mark, SettleSpec.of(q), capture,
                                                 clicks([act], started))
        content.append(_image(png))
    return web.json_response({"content": content, "action": action, "executed": done.executed,
                              "settled": settled.json(), **display.describe()})


def _image(png: bytes) -> JSONObject:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}}


async def tool_definition(request: web.Request, q: Mapping[str, object]) -> web.Response:
    display = await display_of(backend_service(request), q)
    tool: JSONObject = {"type": str(q["version"]), "name": "computer",
                            "display_width_px": display.advertised[0],
                            "display_height_px": display.advertised[1]}
    if q["version"] == "computer_20251124":
        tool["enable_zoom"] = True
    return web.json_response(tool)


SERVER = FormatServer(perform, clicks, [
    Endpoint("POST", with_query(ACTION_QUERY, computer_action),
             "Run an Anthropic computer tool action (computer_20250124 / computer_20251124)",
             RESULT, body=ACTIONS,
             description="The body is the tool_use input; `content` is the tool_result content. "
                         "Coordinates are in the display_width_px x display_height_px space "
                         "(default: the screen) and screenshots come back at that size."),
    Endpoint("GET", with_query(TOOL_QUERY, tool_definition), "The computer tool definition for this desktop",
             TOOL_DEFINITION),
])
