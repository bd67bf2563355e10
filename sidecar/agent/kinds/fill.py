"""fill: several fields at once: text fields typed into, checkboxes, radios and switches set,
selects chosen."""

from __future__ import annotations

from httpapi.errors import ApiError
from httpapi.fields import F, AnyOf, Bool, ListOf, Model, Str

from ..act_fields import REF
from ..act_kind import ActAnswer, ActBody, ActKind, Target
from ..gestures import ActContext, aim, ensure_front, gesture, select_options, type_into
from ..resolve import resolve
from ...page_js import load_js

_CHECKABLE = load_js("sidecar.agent", "checkable.js")
_TAG = "function () { return this.tagName.toLowerCase(); }"


async def _fill_one(ctx: ActContext, field: ActBody) -> ActAnswer:
    element = await resolve(ctx.agent, ctx.page, field["ref"], ctx.timeout)
    value = field["value"]
    tag = await element.call(_TAG, timeout=ctx.timeout)
    if tag == "select":
        return {"ref": element.ref, "selected": await select_options(
            ctx, element, value if isinstance(value, list) else [str(value)])}
    checkable = await element.call(_CHECKABLE, timeout=ctx.timeout)
    if ctx.mode == "visible":
        await ensure_front(ctx)
    summary, point_json, point = await aim(ctx, element, presses=True)
    if checkable is not None:
        want = value if isinstance(value, bool) else str(value).lower() in ("true", "1", "on", "yes")
        if checkable["checked"] != want:
            await gesture(ctx, element, "pointerup", ctx.input.click(point[0], point[1], "left", 1, ()))
        return {"ref": element.ref, "checked": want, "point": point_json}
    if not isinstance(value, str):
        raise ApiError(422, "invalid_field", f"fields: ref {element.ref} is a text field; give a "
                       "string value", field="fields")
    await type_into(ctx, element, point, value, False)
    return {"ref": element.ref, "value": value, "point": point_json}


async def run(ctx: ActContext, target: Target, body: ActBody) -> ActAnswer:
    return {"fields": [await _fill_one(ctx, field) for field in body["fields"]]}


FIELD_VALUE = Model("FillField", [
    F("ref", REF, required=True),
    F("value", AnyOf([Str(max_length=100_000), Bool(), ListOf(Str(max_length=10_000), max_items=100)]),
      required=True, description="Text for a text field; true/false for a checkbox, radio or switch; "
                                 "an option's value or label (or a list) for a select."),
])
KIND = ActKind(
    "fill", [F("fields", ListOf(FIELD_VALUE, min_items=1, max_items=100), required=True)],
    "Fill several fields: text fields, checkboxes, radios, selects.",
    '`fields`: `[{"ref", "value"}]`: text for text fields, `true`/`false` for checkboxes, radios and '
    "switches, an option (or list) for selects",
    run, visible_input=True)
