"""Unicode text, xdotool-style key combos and raw key events: the input layer under POST
/api/v1/keyboard, /step, the compatibility endpoints and the computer-use formats (no HTTP here).

Without a delay each request is one job on the X thread. With ``delay_ms`` the pauses happen on
the event loop between short X jobs, so a slow typist never blocks other requests. A combo is
pressed in order and released in reverse, and keys a failing request pressed are released.
"""

from __future__ import annotations

import asyncio
from typing import Any

from httpapi.errors import invalid
from desktopd.backend.protocol import Backend
from desktopd.backend.service import BackendService

from .pointer_events import check_key_names


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


def key_event(desk: Backend, event: dict[str, Any]) -> None:
    keysym, down = event["keysym"], event["state"] == "down"
    if isinstance(keysym, int):
        desk.keysym(keysym, down)
    else:
        desk.key(keysym, down)


def release_events(desk: Backend, held: list[dict[str, Any]]) -> None:
    for event in reversed(held):
        try:
            key_event(desk, {**event, "state": "up"})
        except Exception:  # best effort on an error path; the original error matters more
            pass


def key_events(desk: Backend, events: list[dict[str, Any]]) -> None:
    """Run events in order; on failure release what this batch pressed and did not release."""
    held: list[dict[str, Any]] = []
    try:
        for event in events:
            key_event(desk, event)
            track_held(held, event)
    except BaseException:
        release_events(desk, held)
        raise


def track_held(held: list[dict[str, Any]], event: dict[str, Any]) -> None:
    if event["state"] == "down":
        held.append(event)
    else:
        held[:] = [e for e in held if e["keysym"] != event["keysym"]]


# ---- request flow ---------------------------------------------------------------------------

async def run_key_events(xs: BackendService, events: list[dict[str, Any]], delay_s: float,
                         prefix: str = "events") -> None:
    names = [(f"{prefix}[{i}].keysym", e["keysym"]) for i, e in enumerate(events)
             if isinstance(e["keysym"], str)]
    await xs.call(check_key_names, names)
    if delay_s <= 0:
        await xs.call(key_events, events)
        return
    held: list[dict[str, Any]] = []
    try:
        for event in events:
            await xs.call(key_event, event)
            track_held(held, event)
            await asyncio.sleep(delay_s)
    except BaseException:
        await asyncio.shield(xs.call(release_events, held))
        raise


async def run_keys(xs: BackendService, body: dict[str, Any]) -> None:
    combos = parse_combos(body["keys"])
    where = "keys"
    names = [(where if isinstance(body["keys"], str) else f"{where}[{i}]", name)
             for i, combo in enumerate(combos) for name in combo]
    await xs.call(check_key_names, names)
    delay_s = body["delay_ms"] / 1000.0
    if body["action"] != "press":
        flat = [name for combo in combos for name in combo]
        await xs.call(hold_keys, flat, body["action"] == "down")
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
            await xs.call(lambda desk, c=chunk: desk.type_text(c), field="text")
        return
    for char in text:
        await xs.call(lambda desk, c=char: desk.type_text(c), field="text")
        await asyncio.sleep(delay_s)


async def run_keyboard(xs: BackendService, body: dict[str, Any]) -> dict[str, Any]:
    """A validated KEYBOARD_BODY, run; returns the answer POST /api/v1/keyboard gives."""
    delay_s = body["delay_ms"] / 1000.0
    if body["text"] is not None:
        await run_text(xs, body["text"], delay_s)
        return {"ok": True, "typed": len(body["text"])}
    if body["keys"] is not None:
        await run_keys(xs, body)
        return {"ok": True}
    await run_key_events(xs, body["events"], delay_s)
    return {"ok": True, "events": len(body["events"])}

