"""POST /api/v1/step: a harness step in one round trip. An act (an action of a vendor format in
desktopd_contract/formats/, a /tablet or a /keyboard body), the settle after it
(desktopd/settle/settler.py), then the observation the next decision needs: the screenshot, the windows,
the pointer. One request instead of four or five; the answer says how long the settle waited and
why it stopped."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from aiohttp import web

from desktopd.backend.protocol import POINTER_SOURCE_SCHEMA, Backend
from desktopd.computer.display import DISPLAY_FIELDS, display_of, display_pair
from desktopd.computer.vendor_format import server_side
from desktopd.handlers.common import settler, backend_service
from desktopd.handlers.screenshot import take
from desktopd.input.keystrokes import run_keyboard
from desktopd.input.pointer_events import run_pointer_body
from desktopd.models import KEYBOARD_BODY, POINTER_BODY, SCREENSHOT_QUERY
from desktopd.settle.settler import SETTLE_FIELDS, SETTLED_SCHEMA, SettleSpec, settled_capture, skipped
from desktopd.settle.browser import Clicks, tablet_clicks
from desktopd_contract.formats import FORMATS
from httpapi.fields import Bool, F, Model

ACTS = (*FORMATS, "tablet", "keyboard")


def _one_act(body: dict[str, Any]) -> tuple[str, str] | None:
    given = [name for name in ACTS if body[name] is not None]
    if len(given) > 1:
        return given[1], f"give at most one of {', '.join(ACTS)}"
    return display_pair(body)


STEP_BODY = Model("StepRequest", [
    *(F(name, fmt.action, description=fmt.step_description) for name, fmt in FORMATS.items()),
    F("tablet", POINTER_BODY, description="A POST /api/v1/tablet body to run."),
    F("keyboard", KEYBOARD_BODY, description="A POST /api/v1/keyboard body to run."),
    *DISPLAY_FIELDS,
    *SETTLE_FIELDS,
    F("screenshot", SCREENSHOT_QUERY,
      description="The image to return after the settle, as GET /api/v1/screenshot's query "
                  "(e.g. {\"format\": \"jpeg\", \"max_width\": 1280}); omitted: no image."),
    F("windows", Bool(), default=False, description="Return the top-level windows as /tree does."),
    F("pointer", Bool(), default=True, description="Return the pointer position."),
], check=_one_act, description="At most one act; without one, the step only observes (and "
                               "settles from the request's arrival).")

RESULT = {"type": "object", "required": ["settled"], "properties": {
    "act": {"type": ["string", "null"], "enum": [*ACTS, None]},
    "executed": {"description": "What the act did: the vendor endpoint's executed (screen pixels), "
                                "or /tablet's or /keyboard's answer."},
    "text": {"type": ["string", "null"], "description": "An Anthropic action's text output."},
    "settled": SETTLED_SCHEMA,
    "screenshot": {"type": ["object", "null"], "properties": {
        "media_type": {"type": "string"}, "data": {"type": "string", "description": "Base64."},
        "width": {"type": "integer"}, "height": {"type": "integer"},
        "scale": {"type": "number", "description": "screen_x = region.x + image_x / scale."},
        "region": {"type": "object", "description": "Captured rectangle, screen pixels."},
        "screen": {"type": "object"}}},
    "windows": {"type": "array", "items": {"type": "object"}, "description": "As /api/v1/tree's."},
    "pointer": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"},
                                                 "source": POINTER_SOURCE_SCHEMA}},
    "timings": {"type": "object", "description": "Seconds: act, settle_and_capture, observe."}}}


async def _act(request: web.Request, body: dict[str, Any]) -> tuple[str | None, Any, str | None]:
    xs = backend_service(request)
    for name, fmt in FORMATS.items():
        if body[name] is not None:
            done = await server_side(fmt).perform(xs, await display_of(xs, body), body[name], name)
            return name, done.executed, done.text
    if body["tablet"] is not None:
        return "tablet", await run_pointer_body(xs, body["tablet"], "tablet"), None
    if body["keyboard"] is not None:
        return "keyboard", await run_keyboard(xs, body["keyboard"]), None
    return None, None, None


def _image(shot: Any) -> dict[str, Any]:
    h = shot.headers
    x, y, w, height = (int(v) for v in h["X-Region"].split(","))
    return {"media_type": shot.content_type, "data": base64.b64encode(shot.body).decode("ascii"),
            "width": int(h["X-Image-Width"]), "height": int(h["X-Image-Height"]),
            "scale": float(h["X-Scale"]), "region": {"x": x, "y": y, "width": w, "height": height},
            "screen": {"width": int(h["X-Screen-Width"]), "height": int(h["X-Screen-Height"])}}


async def step(request: web.Request, body: dict[str, Any]) -> web.Response:
    xs = backend_service(request)
    started = time.monotonic()
    act, executed, text = await _act(request, body)
    acted = time.monotonic()
    spec = SettleSpec.of(body)
    mark = await settler(request).mark()
    shot_query = body["screenshot"]

    async def shoot() -> Any:
        return await take(xs, shot_query) if shot_query is not None else None
    # The pointer is drawn into the image only on request, and reports no damage: not reused then.
    capture = shoot if shot_query is not None and shot_query.get("cursor") else \
        settler(request).reusing(("step", json.dumps(shot_query, sort_keys=True)), shoot)
    if act in FORMATS and FORMATS[act].only_looks([body[act]]):
        shot, settled = await capture(), skipped(spec)
    else:
        shot, settled = await settled_capture(settler(request), mark, spec, capture, _clicks(body, started))
    captured = time.monotonic()
    out: dict[str, Any] = {"act": act, "executed": executed, "text": text, "settled": settled.json(),
                           "screenshot": _image(shot) if shot is not None else None}
    def observe(desk: Backend) -> dict[str, Any]:   # one hop to the X thread for both
        seen: dict[str, Any] = {}
        if body["windows"]:
            seen["windows"] = desk.windows()
        if body["pointer"]:
            x, y = desk.pointer_position()
            seen["pointer"] = {"x": x, "y": y, "source": desk.pointer_source()}
        return seen
    if body["windows"] or body["pointer"]:
        out.update(await xs.call(observe))
    out["timings"] = {"act": round(acted - started, 4), "settle_and_capture": round(captured - acted, 4),
                      "observe": round(time.monotonic() - captured, 4)}
    return web.json_response(out)


def _clicks(body: dict[str, Any], started: float) -> Clicks | None:
    """The left clicks the act gives a page, for the browser's evidence."""
    for name, fmt in FORMATS.items():
        if body[name] is not None:
            return server_side(fmt).clicks([body[name]], started)
    if body["tablet"] is not None:
        return tablet_clicks(body["tablet"], started)
    return None

