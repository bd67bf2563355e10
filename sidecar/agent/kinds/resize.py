"""resize: the tab's browser window set to a size (restored from maximised first)."""

from __future__ import annotations

from httpapi.fields import F, Int

from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    window = await ctx.conn.send("Browser.getWindowForTarget", {"targetId": ctx.page.target_id})
    await ctx.conn.send("Browser.setWindowBounds", {"windowId": window["windowId"],
                                                    "bounds": {"windowState": "normal"}})
    await ctx.conn.send("Browser.setWindowBounds", {"windowId": window["windowId"], "bounds": {
        "width": body["width"], "height": body["height"]}})
    return {"window": {"width": body["width"], "height": body["height"]}}


KIND = ActKind(
    "resize", [
        F("width", Int(minimum=200, maximum=10_000), required=True),
        F("height", Int(minimum=200, maximum=10_000), required=True),
    ], "Resize the tab's browser window.", "`width`, `height` of the tab's window", run)
