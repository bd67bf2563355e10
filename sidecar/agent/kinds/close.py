"""close: the tab closed (never the last one: the browser keeps one)."""

from __future__ import annotations

from httpapi.errors import ApiError

from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    if len(ctx.tracker.pages()) < 2:
        raise ApiError(409, "last_tab", "the browser keeps at least one tab: open another "
                       "(POST /tabs) before closing this one", field="kind")
    if not await ctx.tracker.close(ctx.page, ctx.timeout):
        raise ApiError(409, "not_closed", f"Chromium refused to close tab {ctx.page.target_id}")
    return {"closed": ctx.page.target_id}


KIND = ActKind("close", [], "Close the tab.", "closes the tab (409 `last_tab` for the only one)",
               run, settles=False)
