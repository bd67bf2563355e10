"""GET /api/v1/vision/text, POST /api/v1/vision/click and /fill: text read from the pixels (OCR),
and clicks and typing aimed by that text through desktopd's own input paths."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from aiohttp import web

from desktopd import app_keys
from desktopd.computer import steps
from desktopd.app_keys import backend_service
from desktopd.input.pointer_events import button_number
from desktopd.backend.service import BackendService
from httpapi.errors import ApiError

from .capture import Capture, capture
from .field import beside
from .find import Match, closest, find
from .models import VisionClick, VisionFill, VisionTextQuery
from .reader import Reading, TextReader
from .text import BoxJson, Line, box_json, line_json


def reader(request: web.Request) -> TextReader:
    return request.app[app_keys.TEXT_READER]


async def read(request: web.Request, xs: BackendService, spec: VisionTextQuery) -> tuple[Capture, Reading, list[Line]]:
    """Capture what ``spec`` names, read it, and answer lines in screen pixels above the threshold."""
    shot = await capture(xs, spec["region"], spec["window"])
    reading = await reader(request).read(shot.image)
    lines = []
    for line in reading.lines:
        words = tuple(w for w in line.words if w.confidence >= spec["min_confidence"])
        if words:
            lines.append(Line(words, line.box, line.confidence).moved(shot.area.x, shot.area.y))
    return shot, reading, lines


class EngineJson(TypedDict):
    name: str
    version: str
    fallback: NotRequired[str]     # why the engine is not the preferred one


class ScreenSize(TypedDict):
    width: int
    height: int


class Described(TypedDict):
    """What every vision answer says of its reading."""
    coordinate_space: str
    screen: ScreenSize
    region: BoxJson
    engine: EngineJson
    read_ms: float


def described(shot: Capture, reading: Reading) -> Described:
    engine: EngineJson = {"name": reading.engine.name, "version": reading.engine.version}
    if reading.fallback:
        engine["fallback"] = reading.fallback
    return {"coordinate_space": "screen pixels",
            "screen": {"width": shot.screen[0], "height": shot.screen[1]},
            "region": box_json(shot.area),
            "engine": engine,
            "read_ms": round(reading.read_ms, 1)}


def chosen(lines: list[Line], text: str, exact: bool, nth: int | None, field: str) -> tuple[Match, int]:
    """The one match a click or fill acts on: 404 without any (listing what is there), 409 when
    several match and ``nth`` does not pick one."""
    matches = find(lines, text, exact)
    if not matches or (nth is not None and nth >= len(matches)):
        shown = matches or closest(lines, text)
        what = (f"no visible text matches {text!r}" if not matches
                else f"nth={nth} but only {len(matches)} match {text!r}")
        raise ApiError(404, "text_not_found", what, field=field,
                       extra={"candidates": [m.json() for m in shown]})
    if nth is None and len(matches) > 1:
        raise ApiError(409, "ambiguous_text",
                       f"{len(matches)} visible texts match {text!r}: pick one with nth "
                       "(0 is the first in reading order) or narrow the region", field=field,
                       extra={"candidates": [m.json() for m in matches]})
    return matches[nth or 0], len(matches)


async def vision_text(request: web.Request, q: VisionTextQuery) -> web.Response:
    shot, reading, lines = await read(request, backend_service(request), q)
    return web.json_response({**described(shot, reading), "text": "\n".join(line.text for line in lines),
                              "lines": [line_json(line) for line in lines]})


async def vision_click(request: web.Request, body: VisionClick) -> web.Response:
    xs = backend_service(request)
    shot, reading, lines = await read(request, xs, body)
    match, count = chosen(lines, body["text"], body["exact"], body["nth"], "text")
    x, y = await steps.click(xs, match.box.center, button_number(body["button"]), body["clicks"], [])
    return web.json_response({"clicked": {"x": x, "y": y}, "match": match.json(), "matches": count,
                              **described(shot, reading)})


async def vision_fill(request: web.Request, body: VisionFill) -> web.Response:
    xs = backend_service(request)
    shot, reading, lines = await read(request, xs, body)
    label, _ = chosen(lines, body["label"], body["exact"], body["nth"], "label")
    field = beside(shot.image, label.box, (shot.area.x, shot.area.y))
    if field is None:
        raise ApiError(404, "field_not_found",
                       f"found the label {label.text!r} but no field edge to its right or below it",
                       field="label", extra={"candidates": [label.json()]})
    await steps.click(xs, (field.x, field.y), 1, 1, [])
    if body["clear"]:
        await steps.keys(xs, "ctrl+a BackSpace", "clear")
    await steps.type_text(xs, body["text"])
    return web.json_response({"label": label.json(), "field": {"x": field.x, "y": field.y, "side": field.side},
                              "typed": len(body["text"]), **described(shot, reading)})
