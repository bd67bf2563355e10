"""select: options of a select chosen by value or label."""

from __future__ import annotations

from httpapi.fields import F, ListOf, Str

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, select_options


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    element = target.the_element()
    return {"element": {"ref": element.ref}, "selected": await select_options(ctx, element, body["values"])}


KIND = ActKind(
    "select", [
        F("ref", REF, required=True),
        F("values", ListOf(Str(max_length=10_000), min_items=1, max_items=100), required=True,
          description="Option values or labels."),
    ], "Choose options of a select.", "`ref` of a select, `values` (option values or labels)",
    run, ref="required")
