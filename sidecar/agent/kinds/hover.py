"""hover: the pointer moved over the element."""

from __future__ import annotations

from httpapi.fields import F

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, gesture


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    await gesture(ctx, target.the_element(), "pointermove", ctx.input.move(*target.the_point()))
    return {}


KIND = ActKind("hover", [F("ref", REF, required=True)], "Move the pointer over the element.", "`ref`",
               run, ref="required", aims=True, visible_input=True)
