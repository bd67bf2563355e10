"""The Anthropic format: Anthropic's ``computer`` tool (computer_20250124 and computer_20251124),
served on POST/GET /api/v1/computer/anthropic (desktopd/computer/format_servers/anthropic_server.py runs it).

The body is the tool call's ``input``; the answer's ``content`` is the tool_result's content
blocks (text and/or a base64 PNG), as the reference implementation (anthropic-quickstarts,
computer-use-demo) returns them: every action but cursor_position ends with a screenshot.
Modifier keys for clicks and scrolls come in ``text`` (the reference's clicks also read ``key``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..limits import COORD_LIMIT
from httpapi.fields import F, Enum, Int, ListOf, Model, Number, Str, Tagged, tagged_variant
from httpapi.json_types import JSONValue

from ..vendor_format import Action, JSONObject, KitSide, RawAction, VendorFormat

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
LOOKS = frozenset({"screenshot", "zoom", "cursor_position"})
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


# -- the harness kit's side --------------------------------------------------------------------


def _recognises(action: RawAction) -> bool:
    """An ``action`` key (and no ``type``), or a whole tool_use block."""
    if "action" in action and "type" not in action:
        return True
    return action.get("type") == "tool_use" and isinstance(action.get("input"), Mapping)


def _unwrap(action: RawAction) -> Action:
    """The tool input out of a tool_use block (the action itself otherwise)."""
    inner = action.get("input") if action.get("type") == "tool_use" else None
    return dict(inner) if isinstance(inner, Mapping) else dict(action)


def _executed(reply: JSONObject) -> JSONObject:
    executed = reply.get("executed")
    return dict(executed) if isinstance(executed, dict) else {}


def _step_reply(issued: Action, executed: JSONObject, text: str | None) -> JSONObject:
    content: list[JSONValue] = [{"type": "text", "text": text}] if text is not None else []
    return {"content": content, "action": issued.get("action"), "executed": executed}


FORMAT = VendorFormat(
    name="anthropic",
    action=ACTIONS,
    step_description="An Anthropic computer tool input to run.",
    looks=LOOKS,
    kit=KitSide(
        recognises=_recognises,
        example={"action": "mouse_move", "coordinate": [10, 10]},
        kinds={"left_click": "click", "right_click": "click", "middle_click": "click",
               "double_click": "click", "triple_click": "click", "type": "type", "key": "keys",
               "mouse_move": "move", "scroll": "scroll", "left_click_drag": "drag",
               "left_mouse_down": "mouse_down", "left_mouse_up": "mouse_up", "hold_key": "keys",
               "wait": "wait", "screenshot": "noop", "cursor_position": "noop", "zoom": "noop"},
        body=dict,
        executed=_executed,
        step_reply=_step_reply,
        query={"screenshot": False},
        unwrap=_unwrap),
    server="desktopd.computer.format_servers.anthropic_server")
