"""Unicode text, xdotool-style key combos and raw key events: the input layer under POST
/api/v1/keyboard, /step, the compatibility endpoints and the computer-use formats (no HTTP here).

Without a delay each request is one job on the X thread. With ``delay_ms`` the pauses happen on
the event loop between short X jobs, so a slow typist never blocks other requests. A combo is
pressed in order and released in reverse, and keys a failing request pressed are released.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import NotRequired, TypedDict

from httpapi.errors import invalid
from desktopd.backend.protocol import Backend
from desktopd.backend.service import BackendService

from .events import KeyEvent, as_key_events, as_keyboard_request
from .pointer_events import check_key_names


class KeyboardDone(TypedDict):
    """POST /api/v1/keyboard's answer: what was typed (characters) or run (events)."""
    ok: bool
    typed: NotRequired[int]
    events: NotRequired[int]


def parse_combos(keys: str | list[str], where: str = "keys") -> list[list[str]]:
    """"ctrl+shift+t Return" or ["ctrl+shift+t", "Return"] -> [["ctrl","shift","t"], ["Return"]]."""
    combos = keys.split() if isinstance(keys, str) else keys
    out = []
    for i, combo in enumerate(combos):
        field = where if isinstance(keys, str) else f"{where}[{i}]"
        combo = combo.strip()
        if combo == "+":
            out.append(["plus"])
            continue
        tail = ["plus"] if combo.endswith("++") else []  # "ctrl++": the plus key itself
        parts = (combo[:-2] if tail else combo).split("+") + tail
        if not combo or any(not p for p in parts):
            raise invalid(field, f"empty key name in {combo!r}")
        out.append(parts)
    if not out:
        raise invalid(where, "no keys given")
    return out


# ---- jobs on the X thread (key names are checked by pointer.check_key_names) ----------------

def press_combo(desk: Backend, combo: list[str]) -> None:
    pressed: list[str] = []
    try:
        for name in combo:
            desk.key(name, True)
            pressed.append(name)
    finally:
        for name in reversed(pressed):
            desk.key(name, False)


def press_combos(desk: Backend, combos: list[list[str]]) -> None:
    for combo in combos:
        press_combo(desk, combo)


def hold_keys(desk: Backend, names: list[str], down: bool) -> None:
    for name in (names if down else list(reversed(names))):
        desk.key(name, down)


def key_event(desk: Backend, event: KeyEvent) -> None:
    keysym, down = event["keysym"], event["state"] == "down"
    if isinstance(keysym, int):
        desk.keysym(keysym, down)
    else:
        desk.key(keysym, down)


def release_events(desk: Backend, held: list[KeyEvent]) -> None:
    for event in reversed(held):
        try:
            key_event(desk, {**event, "state": "up"})
        except Exception:  # best effort on an error path; the original error matters more
            pass


def key_events(desk: Backend, events: list[KeyEvent]) -> None:
    """Run events in order; on failure release what this batch pressed and did not release."""
    held: list[KeyEvent] = []
    try:
        for event in events:
            key_event(desk, event)
            track_held(held, event)
    except BaseException:
        release_events(desk, held)
        raise


def track_held(held: list[KeyEvent], event: KeyEvent) -> None:
    if event["state"] == "down":
        held.append(event)
    else:
        held[:] = [e for e in held if e["keysym"] != event["keysym"]]


# ---- request flow ---------------------------------------------------------------------------

async def run_key_events(xs: BackendService, given: Sequence[Mapping[str, object]], delay_s: float,
                         prefix: str = "events") -> None:
    events = as_key_events(given)
    names = [(f"{prefix}[{i}].keysym", e["keysym"]) for i, e in enumerate(events)
             if isinstance(e["keysym"], str)]
    await xs.call(check_key_names, names)
    if delay_s <= 0:
        await xs.call(key_events, events)
        return
    held: list[KeyEvent] = []
    try:
        for event in events:
            await xs.call(key_event, event)
            track_held(held, event)
            await asyncio.sleep(delay_s)
    except BaseException:
        await asyncio.shield(xs.call(release_events, held))
        raise


async def run_keys(xs: BackendService, keys: str | list[str], action: str, delay_s: float) -> None:
    combos = parse_combos(keys)
    where = "keys"
    names = [(where if isinstance(keys, str) else f"{where}[{i}]", name)
             for i, combo in enumerate(combos) for name in combo]
    await xs.call(check_key_names, names)
    if action != "press":
        flat = [name for combo in combos for name in combo]
        await xs.call(hold_keys, flat, action == "down")
    elif delay_s <= 0:
        await xs.call(press_combos, combos)
    else:
        for combo in combos:
            await xs.call(press_combo, combo)
            await asyncio.sleep(delay_s)


TEXT_CHUNK = 256  # characters per X job: long texts never hold the X thread for long


async def run_text(xs: BackendService, text: str, delay_s: float) -> None:
    if delay_s <= 0:
        for start in range(0, len(text), TEXT_CHUNK):
            chunk = text[start:start + TEXT_CHUNK]
            await xs.call(lambda desk, part: desk.type_text(part), chunk, field="text")
        return
    for char in text:
        await xs.call(lambda desk, part: desk.type_text(part), char, field="text")
        await asyncio.sleep(delay_s)


async def run_keyboard(xs: BackendService, given: Mapping[str, object]) -> KeyboardDone:
    """A validated KEYBOARD_BODY, run; returns the answer POST /api/v1/keyboard gives."""
    body = as_keyboard_request(given)
    delay_s = body["delay_ms"] / 1000.0
    text, keys, events = body["text"], body["keys"], body["events"]
    if text is not None:
        await run_text(xs, text, delay_s)
        return {"ok": True, "typed": len(text)}
    if keys is not None:
        await run_keys(xs, keys, body["action"], delay_s)
        return {"ok": True}
    assert events is not None   # KEYBOARD_BODY's check: exactly one of text, keys, events
    await run_key_events(xs, events, delay_s)
    return {"ok": True, "events": len(events)}

