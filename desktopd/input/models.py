"""The input routes' request models (POST /api/v1/tablet, /api/v1/keyboard), declared once: the
handlers validate with them, /step and the compatibility endpoints reuse them, and
/api/v1/openapi.json is generated from them."""

from __future__ import annotations

from collections.abc import Mapping

from httpapi.fields import F, AnyOf, Enum, Int, ListOf, Model, Number, Str
from desktopd_contract.limits import COORD_LIMIT


def coord(description: str = "") -> Int:
    """A screen-pixel coordinate; fractional values (from scaled screenshots) are rounded."""
    return Int(-COORD_LIMIT, COORD_LIMIT, description=description, round_floats=True)


BUTTONS = ("left", "middle", "right")
POINTER_ACTIONS = ("tap", "move", "click", "double_click", "down", "up", "drag", "scroll")

POINT = AnyOf([
    ListOf(coord(), min_items=2, max_items=2),
    Model("Point", [F("x", coord(), required=True), F("y", coord(), required=True)]),
], description="A screen-pixel point, [x, y] or {\"x\":..,\"y\":..}.")


def _pointer_check(e: Mapping[str, object]) -> tuple[str, str] | None:
    action = e["action"]
    if (e["x"] is None) != (e["y"] is None):
        return ("y" if e["y"] is None else "x"), "x and y go together"
    if action in ("tap", "move") and e["x"] is None:
        return "x", f"is required for action {action}"
    if action == "drag" and e["path"] is None and e["x"] is None:
        return "path", "drag needs a path (or x,y to drag from the current position)"
    if action != "drag" and e["path"] is not None:
        return "path", "only applies to action drag"
    if action == "scroll" and not (e["dx"] or e["dy"]):
        return "dy", "scroll needs a non-zero dx or dy"
    if action != "scroll" and (e["dx"] or e["dy"]):
        return ("dx" if e["dx"] else "dy"), "only applies to action scroll"
    return None


POINTER_EVENT = Model("PointerEvent", [
    F("action", Enum(POINTER_ACTIONS), default="tap",
      description="tap = move + left click (what tablet harnesses send)."),
    F("x", coord(), description="Screen pixels (rounded); must be on screen."),
    F("y", coord(), description="Screen pixels (rounded); must be on screen."),
    F("button", AnyOf([Enum(BUTTONS), Int(1, 9)]), default="left",
      description="left/middle/right or an X button number 1..9."),
    F("clicks", Int(1, 3), default=1, description="Click count for click (double_click means 2)."),
    F("path", ListOf(POINT, min_items=1, max_items=2000),
      description="drag: points to move through, button held (screen pixels)."),
    F("duration_ms", Int(0, 60000), default=200,
      description="drag: total time along the path; other requests keep running meanwhile."),
    F("dx", Int(-200, 200), default=0, description="scroll: clicks right (>0) / left (<0)."),
    F("dy", Int(-200, 200), default=0, description="scroll: clicks down (>0) / up (<0)."),
    F("modifiers", ListOf(Str(min_length=1, max_length=64), max_items=8), default=[],
      description="Key names held during the action, e.g. [\"ctrl\"] (xdotool names)."),
], check=_pointer_check)

POINTER_BATCH = Model("PointerBatch", [
    F("events", ListOf(POINTER_EVENT, min_items=1, max_items=500), required=True),
])

POINTER_BODY = AnyOf([POINTER_EVENT, POINTER_BATCH],
                     description="One pointer event, or {\"events\": [...]} run in order.")


def _keyboard_check(k: Mapping[str, object]) -> tuple[str, str] | None:
    given = [name for name in ("text", "keys", "events") if k[name] is not None]
    if len(given) != 1:
        return (given[1] if len(given) > 1 else "text"), "give exactly one of text, keys, events"
    if k["action"] != "press" and k["keys"] is None:
        return "action", "down/up apply to keys"
    return None


KEY_EVENT = Model("KeyEvent", [
    F("keysym", AnyOf([Str(min_length=1, max_length=64), Int(0, 0x1FFFFFFF)]), required=True,
      description="A character, an X keysym / xdotool key name, or a keysym number."),
    F("state", Enum(("down", "up")), required=True),
])

KEYBOARD_BODY = Model("KeyboardRequest", [
    F("text", Str(max_length=100_000), description="Typed exactly, any Unicode."),
    F("keys", AnyOf([Str(min_length=1, max_length=1000),
                     ListOf(Str(min_length=1, max_length=200), min_items=1, max_items=200)]),
      description="xdotool-style combos: \"ctrl+shift+t\", several separated by spaces or as a list."),
    F("action", Enum(("press", "down", "up")), default="press",
      description="keys: press (down in order, up in reverse), or down / up only (holds)."),
    F("events", ListOf(KEY_EVENT, min_items=1, max_items=1000)),
    F("delay_ms", Number(0, 5000), default=0, description="Pause after each key or character."),
], check=_keyboard_check)
