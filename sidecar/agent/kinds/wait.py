"""wait: until text is on the page (or gone), the URL contains a string or the document reached
a load state; after an optional pause; bounded by the act's timeout (408 wait_timeout)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from httpapi.errors import ApiError
from httpapi.fields import F, Enum, Number, Str

from ...cdp.connection import CDPError
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import POLL_S, ActContext
from ...page_js import load_js

CONDITION_WAIT_S = 5.0         # for the condition, when the act gives no timeout

_WAIT_CHECK = load_js("sidecar.agent", "wait_check.js")


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    return {"waited": await _wait(ctx, body)}


async def _wait(ctx: ActContext, body: ActBody) -> ActAnswer:
    if body.get("time"):
        await asyncio.sleep(body["time"])
    wanted = {k: body.get(k) for k in ("text", "text_gone", "url", "load_state") if body.get(k)}
    if not wanted:
        return {"time": body.get("time") or 0}
    budget = body.get("timeout") or CONDITION_WAIT_S
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    while True:
        try:
            reply = await ctx.page.send("Runtime.evaluate", {"expression": _WAIT_CHECK,
                                                             "returnByValue": True}, timeout=ctx.timeout)
            value = (reply.get("result") or {}).get("value")
            seen = value if isinstance(value, dict) else {}
        except CDPError:
            seen = {}           # between documents
        if seen and _met(wanted, seen):
            return wanted
        if loop.time() >= deadline:
            # The agent's condition, not the server, failed: a 4xx the agent can act on.
            raise ApiError(408, "wait_timeout", f"not met within {budget:g} s: {wanted}")
        await asyncio.sleep(POLL_S)


def _met(wanted: Mapping[str, object], seen: Mapping[str, object]) -> bool:
    """Whether the page (wait_check.js: its text, URL and readyState) shows what is wanted."""
    text, url = str(seen.get("text", "")), str(seen.get("url", ""))
    if "text" in wanted and str(wanted["text"]) not in text:
        return False
    if "text_gone" in wanted and str(wanted["text_gone"]) in text:
        return False
    if "url" in wanted and str(wanted["url"]) not in url:
        return False
    if wanted.get("load_state") == "load" and seen.get("state") != "complete":
        return False
    if wanted.get("load_state") == "domcontentloaded" and seen.get("state") == "loading":
        return False
    return True


def _own_time(body: ActBody) -> float:
    """Its pause and its condition's budget: a wait the caller allowed 60 s answers its own 408
    rather than being cut off first."""
    return (body.get("time") or 0) + (body.get("timeout") or CONDITION_WAIT_S)


KIND = ActKind(
    "wait", [
        F("text", Str(min_length=1, max_length=10_000), description="Until this text is on the page."),
        F("text_gone", Str(min_length=1, max_length=10_000), description="Until this text is not."),
        F("url", Str(min_length=1, max_length=10_000), description="Until the URL contains this."),
        F("load_state", Enum(("load", "domcontentloaded")), description="Until the document reached it."),
        F("time", Number(minimum=0, maximum=30), description="Seconds to wait, alone or before the rest."),
    ], "Wait for a condition (bounded by timeout).",
    "`text`, `text_gone`, `url` (substring), `load_state` (`load`/`domcontentloaded`), `time` (s); "
    "bounded by `timeout` (default 5 s; not met: 408 `wait_timeout`)",
    run, own_time=_own_time)
