"""type: the field's text replaced by this text, Enter after on request."""

from __future__ import annotations

from httpapi.fields import F, Bool, Str

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, gesture, type_into
from ..key_combos import parse_combo


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    element = target.the_element()
    await type_into(ctx, element, target.the_point(), body["text"], body["slowly"])
    if body["submit"]:
        await gesture(ctx, element, "keyup", ctx.input.press(parse_combo("Enter")))
    return {}


KIND = ActKind(
    "type", [
        F("ref", REF, required=True),
        F("text", Str(max_length=100_000), required=True),
        F("submit", Bool(), default=False, description="Press Enter after."),
        F("slowly", Bool(), default=False, description="One key at a time (key handlers see each)."),
    ], "Replace the field's text with this text.",
    "`ref`, `text` (replaces the field's text), `submit` (Enter after), `slowly` (one key event per character)",
    run, ref="required", aims=True, visible_input=True, presses=True)
