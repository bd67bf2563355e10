"""scroll_into_view: the element scrolled into view (aiming does it; nothing else happens)."""

from __future__ import annotations

from httpapi.fields import F

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    return {}


KIND = ActKind("scroll_into_view", [F("ref", REF, required=True)], "Scroll the element into view.", "`ref`",
               run, ref="required", aims=True)
