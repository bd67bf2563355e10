"""Pointer events, one or a batch, in screen pixels: the input layer under POST /api/v1/tablet,
/step, the compatibility endpoints and the computer-use formats (no HTTP here).

Events without a timed drag run as ONE job on the X thread (one executor hop per request, so a
click costs well under a millisecond). A drag with a duration is paced on the event loop: each
step is its own short X job, so other requests (screenshots, keys) interleave instead of waiting
for the whole drag. Held buttons and modifiers are released in ``finally`` blocks, also when the
request fails or is cancelled half way.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping, Sequence
from typing import TypedDict

from desktopd.input.models import POINTER_BATCH, POINTER_EVENT
from httpapi.errors import ApiError, invalid
from desktopd.backend.protocol import Backend
from desktopd.backend.service import BackendService

from .events import PointerEvent, as_pointer_events



class PointerDone(TypedDict):
    """POST /api/v1/tablet's answer: where the pointer is afterwards, and how many events ran."""
    x: int
    y: int
    events: int


BUTTON_NUMBERS = {"left": 1, "middle": 2, "right": 3}
STEP_INTERVAL_S = 0.01   # a drag moves the pointer about every 10 ms ...
MAX_STEPS = 2000         # ... but never more than this many times
STEP_PIXELS = 16         # an instant drag still moves through intermediate points, ~16 px apart


def button_number(button: str | int) -> int:
    return BUTTON_NUMBERS[button] if isinstance(button, str) else button


def points_of(event: PointerEvent) -> list[tuple[int, int]]:
    path = event["path"] or []
    return [(p[0], p[1]) if isinstance(p, list) else (p["x"], p["y"]) for p in path]


def field_name(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def off_screen(field: str, detail: str) -> ApiError:
    """422 for a point outside the screen; ``reason`` lets clients tell it from a malformed field."""
    return ApiError(422, "invalid_field", f"{field}: {detail}", field=field, extra={"reason": "off_screen"})


def check_on_screen(events: Sequence[Mapping[str, object]], prefixes: list[str], size: tuple[int, int]) -> None:
    """422 naming the field of the first coordinate outside the screen."""
    width, height = size
    for event, prefix in zip(as_pointer_events(events), prefixes):
        x, y = event["x"], event["y"]
        if x is not None and y is not None:   # POINTER_EVENT gives both or neither
            if not 0 <= x < width:
                raise off_screen(field_name(prefix, "x"), f"{x} is off screen (0..{width - 1})")
            if not 0 <= y < height:
                raise off_screen(field_name(prefix, "y"), f"{y} is off screen (0..{height - 1})")
        for i, (x, y) in enumerate(points_of(event)):
            if not (0 <= x < width and 0 <= y < height):
                raise off_screen(field_name(prefix, f"path[{i}]"),
                              f"({x}, {y}) is off screen ({width}x{height})")


def interpolate(points: list[tuple[int, int]], steps: int) -> list[tuple[int, int]]:
    """About ``steps`` points along the polyline, evenly spaced by distance, passing through
    every vertex (a drawn corner stays a corner) and ending on the last point."""
    if len(points) == 1:
        return [points[0]] * steps
    lengths = [math.dist(a, b) for a, b in zip(points, points[1:])]
    total = sum(lengths)
    if total == 0:
        return [points[-1]] * steps
    out: list[tuple[int, int]] = []
    for (ax, ay), (bx, by), length in zip(points, points[1:], lengths):
        if length == 0:
            continue
        n = max(1, round(steps * length / total))
        out.extend((round(ax + (bx - ax) * j / n), round(ay + (by - ay) * j / n)) for j in range(1, n + 1))
    return out


def polyline_length(points: list[tuple[int, int]]) -> float:
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


# ---- jobs that run on the X thread ----------------------------------------------------------

def check_key_names(desk: Backend, names: list[tuple[str, str]]) -> None:
    for where, name in names:
        try:
            desk.parse_key_name(name)
        except ValueError as exc:
            raise invalid(where, str(exc)) from None


def press_modifiers(desk: Backend, modifiers: list[str]) -> list[str]:
    pressed: list[str] = []
    try:
        for name in modifiers:
            desk.key(name, True)
            pressed.append(name)
    except BaseException:
        release_modifiers(desk, pressed)
        raise
    return pressed


def release_modifiers(desk: Backend, pressed: list[str]) -> None:
    for name in reversed(pressed):
        desk.key(name, False)


def drag_points(desk: Backend, event: PointerEvent) -> list[tuple[int, int]]:
    points = points_of(event)
    x, y = event["x"], event["y"]
    if x is not None and y is not None:
        points.append((x, y))
    if len(points) < 2:  # a drag needs a start: from where the pointer is now
        x, y = desk.pointer_position()
        points.insert(0, (x, y))
    return points


def do_event(desk: Backend, event: PointerEvent) -> None:
    """One pointer event, entirely on the X thread (drags here are the instant kind)."""
    action = event["action"]
    button = button_number(event["button"])
    pressed = press_modifiers(desk, event["modifiers"])
    try:
        if action == "drag":
            points = drag_points(desk, event)
            steps = max(1, min(MAX_STEPS, math.ceil(polyline_length(points) / STEP_PIXELS)))
            desk.pointer_move(*points[0])
            desk.pointer_button(button, True)
            try:
                for point in interpolate(points, steps):
                    desk.pointer_move(*point)
            finally:
                desk.pointer_button(button, False)
            return
        x, y = event["x"], event["y"]
        if x is not None and y is not None:
            desk.pointer_move(x, y)
        if action == "tap":
            desk.pointer_button(1, True)
            desk.pointer_button(1, False)
        elif action in ("click", "double_click"):
            for index in range(2 if action == "double_click" else event["clicks"]):
                if index:
                    # Two presses in the same millisecond carry the same X timestamp, and Chromium
                    # takes the second for a repeat of the first: no double click.
                    time.sleep(CLICK_GAP_S)
                desk.pointer_button(button, True)
                desk.pointer_button(button, False)
        elif action == "down":
            desk.pointer_button(button, True)
        elif action == "up":
            desk.pointer_button(button, False)
        elif action == "scroll":
            desk.scroll(event["dx"], event["dy"])
    finally:
        release_modifiers(desk, pressed)


def do_events(desk: Backend, events: list[PointerEvent]) -> tuple[int, int]:
    for event in events:
        do_event(desk, event)
    x, y = desk.pointer_position()
    return x, y


# Between the clicks of a double or triple click: distinct X timestamps, far inside any
# double-click interval (GTK's and Chromium's are 400-500 ms).
CLICK_GAP_S = 0.015


# ---- paced drags: steps scheduled on the event loop -----------------------------------------

async def paced_drag(xs: BackendService, event: PointerEvent) -> None:
    button = button_number(event["button"])
    duration = event["duration_ms"] / 1000.0
    steps = max(1, min(MAX_STEPS, round(duration / STEP_INTERVAL_S)))

    def start(desk: Backend) -> tuple[list[tuple[int, int]], list[str]]:
        points = drag_points(desk, event)
        pressed = press_modifiers(desk, event["modifiers"])
        try:
            desk.pointer_move(*points[0])
            desk.pointer_button(button, True)
        except BaseException:
            release_modifiers(desk, pressed)
            raise
        return points, pressed

    def finish(desk: Backend, pressed: list[str]) -> None:
        try:
            desk.pointer_button(button, False)
        finally:
            release_modifiers(desk, pressed)

    points, pressed = await xs.call(start)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        route = interpolate(points, steps)
        for k, point in enumerate(route, start=1):
            # Sleep until this step's due time (not a fixed sleep: X calls take time too).
            await asyncio.sleep(max(0.0, started + duration * k / len(route) - loop.time()))
            await xs.call(lambda desk, at: desk.pointer_move(*at), point)
    finally:
        # shield: a client that hangs up mid-drag must not leave the button held.
        await asyncio.shield(xs.call(finish, pressed))


async def run_pointer_events(xs: BackendService, given: Sequence[Mapping[str, object]],
                             prefixes: list[str]) -> tuple[int, int]:
    events = as_pointer_events(given)
    check_on_screen(events, prefixes, await xs.screen_size())
    names = [(field_name(prefix, f"modifiers[{i}]"), name)
             for event, prefix in zip(events, prefixes) for i, name in enumerate(event["modifiers"])]
    if names:
        await xs.call(check_key_names, names)
    batch: list[PointerEvent] = []
    for event in events:
        if event["action"] == "drag" and event["duration_ms"] > 0:
            if batch:
                await xs.call(do_events, batch)
                batch = []
            await paced_drag(xs, event)
        else:
            batch.append(event)
    return await xs.call(do_events, batch)  # an empty batch just reads the position


async def run_pointer_body(xs: BackendService, body: Mapping[str, object], path: str = "") -> PointerDone:
    """One pointer event or ``{"events": [...]}`` (raw JSON, validated here; errors name fields
    under ``path``), run; returns the answer POST /api/v1/tablet gives."""
    if "events" in body:
        events = POINTER_BATCH.validate(body, path)["events"]
        prefixes = [field_name(path, f"events[{i}]") for i in range(len(events))]
    else:
        events = [POINTER_EVENT.validate(body, path)]
        prefixes = [path]
    x, y = await run_pointer_events(xs, events, prefixes)
    return {"x": x, "y": y, "events": len(events)}

