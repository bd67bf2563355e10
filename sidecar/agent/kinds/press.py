"""press: a key combo, on the element of ref (focused first) or the focused one."""

from __future__ import annotations

from httpapi.fields import F, Str

from ..act_fields import REF, combo_check
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, ensure_front, gesture
from ..key_combos import parse_combo


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    out: ActAnswer = {}
    element = target.element
    if element is not None:
        await element.session.send("DOM.focus", {"backendNodeId": element.key.backend_node_id},
                                   timeout=ctx.timeout)
        out["element"] = {"ref": element.ref}
    elif ctx.mode == "visible":
        await ensure_front(ctx)
    await gesture(ctx, element, "keyup", ctx.input.press(parse_combo(body["key"])))
    return out


KIND = ActKind(
    "press", [
        F("key", Str(min_length=1, max_length=64, check=combo_check), required=True,
          description="A key or combo: Enter, Tab, ArrowDown, Control+a, Shift+Tab."),
        F("ref", REF, description="Focus this element first (default: the focused one)."),
    ], "Press a key combo.",
    "`key`: `Enter`, `Tab`, `ArrowDown`, `Control+a`, `Shift+Tab`, `Control+=` …; optional `ref` to focus first",
    run, ref="optional", visible_input=True)
