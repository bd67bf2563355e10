"""POST /api/v1/demonstration/start|stop, GET /api/v1/demonstration and its actions (NDJSON,
followed live): a person's input on the X11 desktop, as actions."""

from __future__ import annotations

import asyncio
import json
from typing import TypedDict

from aiohttp import web

from desktopd import app_keys
from desktopd.app_keys import backend_service
from desktopd.backend.protocol import Backend
from desktopd.x11.desktop import X11Desktop
from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Int, Model, Number

from .coalesce import Timing
from .session import Demonstration, Demonstrations

MAX_SECONDS = 4 * 3600.0
MAX_FOLLOW_S = 3600.0
HEARTBEAT_S = 5.0     # a line now and then: a client that left is noticed, a proxy keeps the stream
FEATURE = ("capturing a person's input (X RECORD): a Wayland compositor shows no client another "
           "client's input, and the VNC server's input path is not observable from desktopd")


class DemonstrationStart(TypedDict):
    max_seconds: float
    double_click_ms: int
    typing_idle_ms: int


class DemonstrationActions(TypedDict):
    since: int
    follow: bool
    max_seconds: float
    heartbeat_s: float


START_BODY = Typed(Model("DemonstrationStart", [
    F("max_seconds", Number(maximum=MAX_SECONDS, exclusive_minimum=0), default=3600.0,
      description="The capture ends by itself after this long (a client that vanished)."),
    F("double_click_ms", Int(50, 2000), default=400,
      description="A second click this soon after the first, at its place, is one click of count 2."),
    F("typing_idle_ms", Int(100, 10000), default=1000,
      description="Typed text becomes an action after this long without a key (or at the next "
                  "other action)."),
]), DemonstrationStart)
ACTIONS_QUERY = Typed(Model("DemonstrationActions", [
    F("since", Int(0, 2**62), default=0, description="Only actions with a higher seq (resume after a drop)."),
    F("follow", Bool(), default=True, description="Keep the stream open for new actions until the "
                                                  "demonstration ends or max_seconds pass."),
    F("max_seconds", Number(maximum=MAX_FOLLOW_S, exclusive_minimum=0), default=600.0,
      description="How long a followed stream stays open at most (reconnect with since)."),
    F("heartbeat_s", Number(minimum=0.1, maximum=30.0), default=HEARTBEAT_S,
      description="A heartbeat line after this long without an action (with pending and idle_ms: "
                  "a client refreshing its view between actions knows whether input is under way)."),
]), DemonstrationActions)

STATE = {"type": "object", "properties": {
    "id": {"type": "string"}, "started_at": {"type": "number"}, "started_monotonic": {"type": "number"},
    "max_seconds": {"type": "number"}, "running": {"type": "boolean"},
    "actions": {"type": "integer", "description": "Actions so far (the last seq)."},
    "by_source": {"type": "object", "properties": {"person": {"type": "integer"}, "agent": {"type": "integer"}}},
    "events": {"type": "integer", "description": "Device events captured."},
    "ended_at": {"type": ["number", "null"]},
    "end_reason": {"type": ["string", "null"], "description": "Why it ended without a stop (the X "
                                                             "server went away, max_seconds)."}}}
ACTION_LINE = {"type": "object", "description": "One NDJSON line: an action, a heartbeat or the end.", "properties": {
    "seq": {"type": "integer"}, "source": {"enum": ["person", "agent"],
                                           "description": "agent: input desktopd itself injected."},
    "action": {"type": "object", "description": "desktopd's action format: click {x, y, button, clicks, "
                                                "modifiers?}, drag {path: [[x, y], [x, y]], button}, scroll "
                                                "{x, y, dx, dy}, type {text}, keys {keys}."},
    "start_ms": {"type": "integer", "description": "X server time of its first event (ms)."},
    "end_ms": {"type": "integer"}, "end_wall": {"type": "number", "description": "Unix time of its last event."},
    "published_wall": {"type": "number", "description": "Unix time desktopd made it an action."},
    "capture_lag_ms": {"type": ["integer", "null"], "description": "How long the last event read took to reach "
                                                                   "desktopd after the server stamped it (null "
                                                                   "when the server's clock is not CLOCK_MONOTONIC)."},
    "events": {"type": "integer"}, "pointer": {"type": "object"},
    "heartbeat": {"type": "number", "description": "A heartbeat line: desktopd's monotonic time, with pending "
                                                  "(input still becoming an action) and idle_ms (since the last "
                                                  "device event, motion included; null before the first)."},
    "pending": {"type": "boolean"}, "idle_ms": {"type": ["integer", "null"]},
    "end": {"type": "object", "description": "The demonstration's state, last."}}}


def demonstrations(request: web.Request) -> Demonstrations:
    return request.app[app_keys.DEMONSTRATIONS]


def _client_id_base(desk: Backend) -> int:
    """desktopd's own X client; the caller required the x11 backend first."""
    if not isinstance(desk, X11Desktop):
        raise TypeError(f"{FEATURE} needs the X11 backend, not {type(desk).__name__}")
    return desk.client_id_base()


async def start(request: web.Request, body: DemonstrationStart) -> web.Response:
    xs = backend_service(request)
    xs.require("x11", FEATURE)
    own = await xs.call(_client_id_base)
    demo = await demonstrations(request).start(frozenset({own}), body["max_seconds"],
                                               Timing(double_click_ms=body["double_click_ms"],
                                                      typing_idle_ms=body["typing_idle_ms"]))
    return web.json_response(demo.describe())


async def stop(request: web.Request) -> web.Response:
    backend_service(request).require("x11", FEATURE)
    demo = await demonstrations(request).stop()
    return web.json_response(demo.describe())


async def state(request: web.Request) -> web.Response:
    backend_service(request).require("x11", FEATURE)
    return web.json_response(demonstrations(request).get().describe())


async def actions(request: web.Request, q: DemonstrationActions) -> web.StreamResponse:
    backend_service(request).require("x11", FEATURE)
    demo = demonstrations(request).get()
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson", "Cache-Control": "no-store"})
    await response.prepare(request)
    await follow(response, demo, q["since"], q["follow"], q["max_seconds"], q["heartbeat_s"])
    await response.write_eof()
    return response


async def follow(response: web.StreamResponse, demo: Demonstration, since: int, live: bool,
                 max_seconds: float, heartbeat_s: float) -> None:
    loop = asyncio.get_running_loop()
    until = loop.time() + max_seconds
    seq = since
    while True:
        for action in demo.since(seq):
            await response.write((json.dumps(action, ensure_ascii=False) + "\n").encode())
            seq = action["seq"]
        if not live or not demo.running or loop.time() >= until:
            break
        async with demo.changed:
            if demo.since(seq) or not demo.running:   # it came while the lines were written
                continue
            try:
                await asyncio.wait_for(demo.changed.wait(), min(heartbeat_s, max(0.0, until - loop.time())))
            except asyncio.TimeoutError:
                await response.write((json.dumps({"heartbeat": loop.time(), **demo.activity()}) + "\n").encode())
    for action in demo.since(seq):    # what the end flushed
        await response.write((json.dumps(action, ensure_ascii=False) + "\n").encode())
    await response.write((json.dumps({"end": demo.describe()}) + "\n").encode())
