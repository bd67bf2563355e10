"""POST /api/v1/step: a harness step in one round trip. An act (an action of a vendor format in
desktopd_contract/formats/, a /tablet or a /keyboard body), the settle after it
(desktopd/settle/settler.py), then the observation the next decision needs: the screenshot, the windows,
the pointer. One request instead of four or five; the answer says how long the settle waited and
why it stopped."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Sequence
from typing import Any, TypeAlias, TypedDict

from aiohttp import web

from desktopd.backend.protocol import Backend
from desktopd.computer.display import display_of
from desktopd.computer.vendor_format import server_side
from desktopd.app_keys import settler, backend_service
from desktopd.screen.handlers import Shot, take
from desktopd.input.keystrokes import KeyboardDone, run_keyboard
from desktopd.input.pointer_events import PointerDone, run_pointer_body
from desktopd.settle.settler import SettleSpec, settled_capture, skipped
from desktopd.settle.browser import Clicks, tablet_clicks
from desktopd_contract.formats import FORMATS
from desktopd_contract.windows import WindowInfo
from httpapi.json_types import JSONObject

# What the act did: a vendor format's executed actions, or /tablet's or /keyboard's answer.
Executed: TypeAlias = "JSONObject | PointerDone | KeyboardDone"


class PointerAt(TypedDict):
    x: int
    y: int
    source: str                  # desktopd/backend/protocol.py's POINTER_SOURCES


class Observed(TypedDict, total=False):
    """What the step was asked to observe besides the screenshot."""
    windows: Sequence[WindowInfo]
    pointer: PointerAt


async def _act(request: web.Request, body: dict[str, Any]) -> tuple[str | None, Executed | None, str | None]:
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


def _image(shot: Shot) -> JSONObject:
    h = shot.headers
    x, y, w, height = (int(v) for v in h["X-Region"].split(","))
    return {"media_type": shot.content_type, "data": base64.b64encode(shot.body).decode("ascii"),
            "width": int(h["X-Image-Width"]), "height": int(h["X-Image-Height"]),
            "scale": float(h["X-Scale"]), "scale_y": float(h["X-Scale-Y"]),
            "region": {"x": x, "y": y, "width": w, "height": height},
            "screen": {"width": int(h["X-Screen-Width"]), "height": int(h["X-Screen-Height"])}}


async def step(request: web.Request, body: dict[str, Any]) -> web.Response:
    xs = backend_service(request)
    started = time.monotonic()
    act, executed, text = await _act(request, body)
    acted = time.monotonic()
    spec = SettleSpec.of(body)
    mark = await settler(request).mark()
    shot_query = body["screenshot"]

    async def shoot() -> Shot | None:
        return await take(xs, shot_query) if shot_query is not None else None
    # The pointer is drawn into the image only on request, and reports no damage: not reused then.
    capture = shoot if shot_query is not None and shot_query.get("cursor") else \
        settler(request).reusing(("step", json.dumps(shot_query, sort_keys=True)), shoot)
    if act in FORMATS and FORMATS[act].only_looks([body[act]]):
        shot, settled = await capture(), skipped(spec)
    else:
        shot, settled = await settled_capture(settler(request), mark, spec, capture, _clicks(body, started))
    captured = time.monotonic()
    out: dict[str, object] = {"act": act, "executed": executed, "text": text, "settled": settled.json(),
                           "screenshot": _image(shot) if shot is not None else None}
    def observe(desk: Backend) -> Observed:   # one hop to the X thread for both
        seen: Observed = {}
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

