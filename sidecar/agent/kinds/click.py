"""click: the element's centre, with a button, once or twice, with modifiers held."""

from __future__ import annotations

from httpapi.fields import F, Bool, Enum, ListOf

from ..act_fields import MODIFIER, REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, gesture, modifiers


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    x, y = target.the_point()
    await gesture(ctx, target.the_element(), "pointerup", ctx.input.click(
        x, y, body["button"], 2 if body["double"] else 1, modifiers(body["modifiers"])))
    return {}


KIND = ActKind(
    "click", [
        F("ref", REF, required=True),
        F("button", Enum(("left", "right", "middle")), default="left"),
        F("double", Bool(), default=False),
        F("modifiers", ListOf(MODIFIER, max_items=4), default=[]),
    ], "Click the element's centre.",
    '`ref`, `button` (left/right/middle), `double`, `modifiers` (`["Control","Shift"]`)',
    run, ref="required", aims=True, visible_input=True, presses=True)
