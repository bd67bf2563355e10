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
from httpapi.fields import F, Bool, Enum, Int, Model, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel

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

STATE = ResponseModel("DemonstrationState", [
    F("id", Str()), F("started_at", Number()), F("started_monotonic", Number()),
    F("max_seconds", Number()), F("running", Bool()),
    F("actions", Int(), description="Actions so far (the last seq)."),
    F("by_source", ResponseModel("ActionsBySource", [F("person", Int()), F("agent", Int())])),
    F("events", Int(), description="Device events captured."),
    F("ended_at", Nullable(Number())),
    F("end_reason", Nullable(Str()), description="Why it ended without a stop (the X server went "
                                                 "away, max_seconds)."),
])
ACTION_LINE = ResponseModel("DemonstrationLine", [
    F("seq", Int()),
    F("source", Enum(["person", "agent"], typed=False), description="agent: input desktopd itself injected."),
    F("action", Opaque("object"), description="desktopd's action format: click {x, y, button, "
      "clicks, modifiers?}, drag {path: [[x, y], [x, y]], button}, scroll {x, y, dx, dy}, type "
      "{text}, keys {keys}."),
    F("start_ms", Int(), description="X server time of its first event (ms)."),
    F("end_ms", Int()), F("end_wall", Number(), description="Unix time of its last event."),
    F("published_wall", Number(), description="Unix time desktopd made it an action."),
    F("capture_lag_ms", Nullable(Int()), description="How long the last event read took to reach "
      "desktopd after the server stamped it (null when the server's clock is not CLOCK_MONOTONIC)."),
    F("events", Int()), F("pointer", Opaque("object")),
    F("heartbeat", Number(), description="A heartbeat line: desktopd's monotonic time, with pending "
      "(input still becoming an action) and idle_ms (since the last device event, motion included; "
      "null before the first)."),
    F("pending", Bool()), F("idle_ms", Nullable(Int())),
    F("end", Opaque("object"), description="The demonstration's state, last."),
], description="One NDJSON line: an action, a heartbeat or the end.")

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
