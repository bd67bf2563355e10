"""POST/GET /api/v1/computer/anthropic: Anthropic's ``computer`` tool (computer_20250124 and
computer_20251124) on this desktop.

The body is the tool call's ``input``; the answer's ``content`` is the tool_result's content
blocks (text and/or a base64 PNG), as the reference implementation (anthropic-quickstarts,
computer-use-demo) returns them: every action but cursor_position ends with a screenshot.
Modifier keys for clicks and scrolls come in ``text`` (the reference's clicks also read ``key``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from httpapi.fields import F, Enum, Int, ListOf, Model, Number, Str, Tagged, tagged_variant
from desktopd.handlers.common import json_body, query, settler, xservice
from desktopd.settle_browser import anthropic_clicks
from desktopd.settle import SETTLE_FIELDS, SETTLED_SCHEMA, SettleSpec, settled_capture, skipped
from desktopd.models import COORD_LIMIT
from httpapi.errors import invalid
from desktopd.xservice import XService

from . import steps
from .display import (DISPLAY_FIELDS, SCREENSHOT_FIELD, Display, b64, display_of,
                      display_pair, model_screenshot, screenshot_png)

TOOL_VERSIONS = ("computer_20250124", "computer_20251124")
MAX_DURATION_S = 100.0   # the reference refuses longer holds and waits
MAX_SCROLL_AMOUNT = 200

COORDINATE = ListOf(Int(0, COORD_LIMIT), min_items=2, max_items=2,
                    description="[x, y] in the advertised display's pixels.")
MODIFIER_TEXT = Str(min_length=1, max_length=200,
                    description="Keys held during the action, xdotool style: \"shift\", \"ctrl+alt\".")
KEY_TEXT = Str(min_length=1, max_length=1000,
               description="xdotool key syntax: \"Return\", \"ctrl+s\", several separated by spaces.")
DURATION = Number(0, MAX_DURATION_S, description="Seconds.")


def _variant(action: str, *fields: F, description: str = "") -> Model:
    name = "Anthropic" + "".join(part.capitalize() for part in action.split("_"))
    return tagged_variant("action", action, fields, name=name, description=description)


def _click(action: str) -> Model:
    return _variant(action, F("coordinate", COORDINATE, description="Move here first."),
                    F("text", MODIFIER_TEXT), F("key", MODIFIER_TEXT, description="Same as text."))


# Actions that only look: nothing of theirs to settle (they answer with the screen as it is).
LOOKS = ("screenshot", "zoom", "cursor_position")
CLICKS = {"left_click": (1, 1), "right_click": (3, 1), "middle_click": (2, 1),
          "double_click": (1, 2), "triple_click": (1, 3)}
SCROLL_DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}

ACTIONS = Tagged("action", {
    "key": _variant("key", F("text", KEY_TEXT, required=True)),
    "type": _variant("type", F("text", Str(min_length=0, max_length=100_000), required=True,
                               description="Typed exactly, any Unicode.")),
    "mouse_move": _variant("mouse_move", F("coordinate", COORDINATE, required=True),
                           F("text", MODIFIER_TEXT)),
    **{action: _click(action) for action in CLICKS},
    "left_click_drag": _variant(
        "left_click_drag", F("start_coordinate", COORDINATE, description="Default: the pointer."),
        F("coordinate", COORDINATE, required=True, description="Where the drag ends."),
        F("text", MODIFIER_TEXT)),
    "left_mouse_down": _variant("left_mouse_down", F("coordinate", COORDINATE)),
    "left_mouse_up": _variant("left_mouse_up", F("coordinate", COORDINATE)),
    "scroll": _variant(
        "scroll", F("coordinate", COORDINATE, description="Move here first."),
        F("scroll_direction", Enum(tuple(SCROLL_DIRECTIONS)), required=True),
        F("scroll_amount", Int(0, MAX_SCROLL_AMOUNT), required=True, description="Wheel clicks."),
        F("text", MODIFIER_TEXT)),
    "hold_key": _variant("hold_key", F("text", KEY_TEXT, required=True),
                         F("duration", DURATION, required=True)),
    "wait": _variant("wait", F("duration", DURATION, required=True)),
    "screenshot": _variant("screenshot"),
    "cursor_position": _variant("cursor_position"),
    "zoom": _variant("zoom", F("region", ListOf(Int(0, COORD_LIMIT), min_items=4, max_items=4),
                               required=True, description="[x0, y0, x1, y1] in display pixels.")),
}, description="The input of an Anthropic computer tool call; `action` picks the variant.")

ACTION_QUERY = Model("AnthropicActionQuery", [*DISPLAY_FIELDS, SCREENSHOT_FIELD, *SETTLE_FIELDS],
                     check=display_pair)
TOOL_QUERY = Model("AnthropicToolQuery", [
    *DISPLAY_FIELDS,
    F("version", Enum(TOOL_VERSIONS), default=TOOL_VERSIONS[0], description="The tool type."),
], check=display_pair)

RESULT = {"type": "object", "required": ["content"], "properties": {
    "content": {"type": "array", "description": "The tool_result's content blocks.", "items": {"oneOf": [
        {"type": "object", "properties": {"type": {"const": "text"}, "text": {"type": "string"}}},
        {"type": "object", "properties": {"type": {"const": "image"}, "source": {
            "type": "object", "properties": {"type": {"const": "base64"},
                                             "media_type": {"const": "image/png"},
                                             "data": {"type": "string"}}}}}]}},
    "action": {"type": "string"},
    "executed": {"type": "object", "description": "What ran, in screen pixels."},
    "settled": SETTLED_SCHEMA,
    "screen": {"type": "object"}, "display": {"type": "object"}}}
TOOL_DEFINITION = {"type": "object", "properties": {
    "type": {"enum": list(TOOL_VERSIONS)}, "name": {"const": "computer"},
    "display_width_px": {"type": "integer"}, "display_height_px": {"type": "integer"},
    "display_number": {"type": ["integer", "null"]}, "enable_zoom": {"type": "boolean"}}}


def _point(display: Display, value: list[int] | None, field: str) -> tuple[int, int] | None:
    return None if value is None else display.to_screen(value[0], value[1], field)


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


async def perform(xs: XService, display: Display, act: dict[str, Any]) -> dict[str, Any]:
    """Run one action; returns what ran (screen pixels) and any text for the model."""
    action = act["action"]
    executed: dict[str, Any] = {}
    text_out: str | None = None
    if action == "key":
        await steps.keys(xs, act["text"], "text")
        executed["keys"] = act["text"]
    elif action == "type":
        await steps.type_text(xs, act["text"])
        executed["typed"] = len(act["text"])
    elif action == "mouse_move":
        at = _point(display, act["coordinate"], "coordinate")
        modifiers = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", m) for m in modifiers])
        executed["x"], executed["y"] = await steps.move(xs, at, modifiers)
    elif action in CLICKS:
        at = _point(display, act["coordinate"], "coordinate")
        where = "text" if act["text"] else "key"
        modifiers = steps.modifier_names(act["text"] or act["key"], where)
        await steps.check_keys(xs, [(where, m) for m in modifiers])
        button, count = CLICKS[action]
        executed["x"], executed["y"] = await steps.click(xs, at, button, count, modifiers)
        executed.update(button=button, clicks=count, modifiers=modifiers)
    elif action == "left_click_drag":
        end = _point(display, act["coordinate"], "coordinate")
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
        executed.update(dx=ux * amount, dy=uy * amount, modifiers=modifiers)
    elif action == "hold_key":
        names = steps.modifier_names(act["text"], "text")
        await steps.check_keys(xs, [("text", n) for n in names])
        await steps.hold(xs, names, act["duration"])
        executed.update(keys=names, seconds=act["duration"])
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
    return {"executed": executed, "text": text_out}


async def computer_action(request: web.Request) -> web.Response:
    q = query(request, ACTION_QUERY)
    act = await json_body(request, ACTIONS)
    xs = xservice(request)
    display = await display_of(xs, q)
    started = time.monotonic()
    done = await perform(xs, display, act)
    mark = await settler(request).mark()
    settled = skipped(SettleSpec.of(q))
    content: list[dict[str, Any]] = []
    if done["text"] is not None:
        content.append({"type": "text", "text": done["text"]})
    action = act["action"]
    if action == "zoom":
        png = await screenshot_png(xs, None, tuple(done["executed"]["region"]))
        content.append(_image(png))
    elif action != "cursor_position" and (q["screenshot"] or action == "screenshot"):
        capture = settler(request).reusing(("model png", display.advertised if display.scaled else None),
                                           model_screenshot(xs, display))
        if action in LOOKS:
            png = await capture()
        else:
            png, settled = await settled_capture(settler(request), mark, SettleSpec.of(q), capture,
                                                 anthropic_clicks(act, started))
        content.append(_image(png))
    return web.json_response({"content": content, "action": action, "executed": done["executed"],
                              "settled": settled.json(), **display.describe()})


def _image(png: bytes) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}}


async def tool_definition(request: web.Request) -> web.Response:
    q = query(request, TOOL_QUERY)
    display = await display_of(xservice(request), q)
    tool: dict[str, Any] = {"type": q["version"], "name": "computer",
                            "display_width_px": display.advertised[0],
                            "display_height_px": display.advertised[1]}
    if q["version"] == "computer_20251124":
        tool["enable_zoom"] = True
    return web.json_response(tool)
