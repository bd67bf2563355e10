"""drag: press on ref, move to to_ref, release."""

from __future__ import annotations

from httpapi.fields import F

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, aim, gesture
from ..resolve import resolve


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    out: ActAnswer = {}
    drop = await resolve(ctx.agent, ctx.page, body["to_ref"], ctx.timeout)
    out["to_element"], out["to_point"], end = await aim(ctx, drop, presses=True)
    _summary, _json, start = await aim(ctx, target.the_element(), presses=True)    # the source may have scrolled away
    await gesture(ctx, drop, "pointerup", ctx.input.drag(start, end))
    return out


KIND = ActKind("drag", [F("ref", REF, required=True), F("to_ref", REF, required=True)],
               "Press on ref, move to to_ref, release.", "`ref` → `to_ref`",
               run, ref="required", aims=True, visible_input=True, presses=True)
