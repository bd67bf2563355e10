"""The OpenAI format: the actions of an OpenAI ``computer_call``, served on POST
/api/v1/computer/openai (desktopd/computer/format_servers/openai_server.py runs them) and answered with the
``computer_call_output`` item the Responses API expects next (a screenshot).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..limits import COORD_LIMIT
from httpapi.fields import F, Enum, Int, ListOf, Model, Str, Tagged, tagged_variant

from ..vendor_format import Action, JSONObject, KitSide, RawAction, VendorFormat

BUTTONS = {"left": 1, "wheel": 2, "right": 3, "back": 8, "forward": 9}
# Actions that change nothing on the screen: a call made only of these does not settle.
LOOKS = frozenset({"screenshot", "wait"})
X = Int(0, COORD_LIMIT, description="Display pixels.")
KEYS = ListOf(Str(min_length=1, max_length=64), max_items=8,
              description="Keys held during the action, e.g. [\"SHIFT\"].")


def _variant(kind: str, *fields: F) -> Model:
    name = "OpenAI" + "".join(part.capitalize() for part in kind.split("_"))
    return tagged_variant("type", kind, fields, name=name)


POINT = Model("OpenAIPoint", [F("x", X, required=True), F("y", X, required=True)])

ACTION = Tagged("type", {
    "click": _variant("click", F("button", Enum(tuple(BUTTONS)), default="left"),
                      F("x", X, required=True), F("y", X, required=True), F("keys", KEYS)),
    "double_click": _variant("double_click", F("x", X, required=True), F("y", X, required=True),
                             F("keys", KEYS)),
    "drag": _variant("drag", F("path", ListOf(POINT, min_items=1, max_items=2000), required=True),
                     F("keys", KEYS)),
    "keypress": _variant("keypress", F("keys", ListOf(Str(min_length=1, max_length=64), min_items=1,
                                                      max_items=16), required=True)),
    "move": _variant("move", F("x", X, required=True), F("y", X, required=True), F("keys", KEYS)),
    "scroll": _variant("scroll", F("x", X, required=True), F("y", X, required=True),
                       F("scroll_x", Int(-100_000, 100_000), default=0, description="Pixels, > 0 right."),
                       F("scroll_y", Int(-100_000, 100_000), default=0, description="Pixels, > 0 down."),
                       F("keys", KEYS)),
    "type": _variant("type", F("text", Str(max_length=100_000), required=True)),
    "wait": _variant("wait"),
    "screenshot": _variant("screenshot"),
}, description="One action of a computer_call; `type` picks the variant.")


# -- the harness kit's side --------------------------------------------------------------------

_ONLY_OPENAI_TYPES = ("keypress",)
_ONLY_OPENAI_BUTTONS = ("wheel", "back", "forward")
_POINTER_TYPES = ("click", "double_click", "move", "scroll", "drag")


def _recognises(action: RawAction) -> bool:
    """A ``type`` and something only OpenAI says: type keypress, scroll_x/scroll_y, keys held
    during a pointer action, a button wheel/back/forward, a drag path of {x, y}, or a wait
    without seconds (the kit's own format has the same types with other fields)."""
    kind, path = action.get("type"), action.get("path")
    if not isinstance(kind, str):
        return False
    return kind in _ONLY_OPENAI_TYPES or "scroll_x" in action or "scroll_y" in action \
        or action.get("button") in _ONLY_OPENAI_BUTTONS \
        or (kind in _POINTER_TYPES and "keys" in action) \
        or (kind == "drag" and isinstance(path, list) and bool(path) and isinstance(path[0], Mapping)) \
        or (kind == "wait" and "seconds" not in action)


def _executed(reply: JSONObject) -> JSONObject:
    """The last action's: what the pointer did last."""
    executed = reply.get("executed")
    last = executed[-1] if isinstance(executed, list) and executed else None
    return dict(last) if isinstance(last, dict) else {}


def _step_reply(issued: Action, executed: JSONObject, text: str | None) -> JSONObject:
    return {"type": "computer_call_output", "executed": [executed]}


FORMAT = VendorFormat(
    name="openai",
    action=ACTION,
    step_description="An OpenAI computer_call action to run.",
    looks=LOOKS,
    kit=KitSide(
        recognises=_recognises,
        example={"type": "move", "x": 10, "y": 10, "keys": []},
        kinds={"click": "click", "double_click": "click", "type": "type", "keypress": "keys", "move": "move",
               "scroll": "scroll", "drag": "drag", "wait": "wait", "screenshot": "noop"},
        body=lambda action: {"action": action},
        executed=_executed,
        step_reply=_step_reply),
    server="desktopd.computer.format_servers.openai_server")
