"""evaluate: a JavaScript function run on the element of ref (or the page); its JSON result is the
answer's ``result``. Refused with SIDECAR_AGENT_EVALUATE=0."""

from __future__ import annotations

from httpapi.errors import ApiError
from httpapi.fields import F, Str
from httpapi.json_types import JSONValue

from ...cdp.pages import exception_text
from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext
from ..resolve import Element


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    return {"result": await _evaluate(ctx, body, target.element)}


async def _evaluate(ctx: ActContext, body: ActBody, element: Element | None) -> JSONValue:
    if not ctx.evaluate_allowed:
        raise ApiError(403, "evaluate_disabled", "this sidecar runs with SIDECAR_AGENT_EVALUATE=0",
                       field="kind")
    function = body["function"]
    if element is not None:
        return await element.call(f"function () {{ return ({function})(this); }}",
                                  timeout=ctx.timeout, await_promise=True)
    reply = await ctx.page.send("Runtime.evaluate", {"expression": f"({function})()",
                                                     "returnByValue": True, "awaitPromise": True},
                                timeout=ctx.timeout)
    if "exceptionDetails" in reply:
        raise ApiError(422, "script_error", exception_text(reply["exceptionDetails"]))
    return (reply.get("result") or {}).get("value")


KIND = ActKind(
    "evaluate", [
        F("function", Str(min_length=1, max_length=100_000), required=True,
          description="A JavaScript function: (element) => ... with ref, () => ... without."),
        F("ref", REF),
    ], "Run a function on the element or the page; its JSON result is the answer's result. "
       "Refused when the sidecar runs with SIDECAR_AGENT_EVALUATE=0.",
    "`function`: `(el) => …` with `ref`, `() => …` without; its JSON result is `result`. Refused (403) "
    "when the sidecar runs with `SIDECAR_AGENT_EVALUATE=0`",
    run, ref="optional")
