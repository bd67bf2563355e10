"""Input steps both computer-use adapters are made of, run through desktopd's own input code
(so held modifiers and buttons are released on failure exactly as for /api/v1/tablet)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from desktopd.input.keystrokes import parse_combos, press_combos, hold_keys, run_text
from desktopd.input.pointer_events import check_key_names, run_pointer_events
from desktopd.input.models import POINTER_EVENT
from desktopd.backend.service import BackendService

# Each wheel click scrolls a few lines; a drag made of many small moves reads as a drag to
# applications (not a jump), like /api/v1/tablet's instant drags.
MAX_WHEEL_CLICKS = 200


async def check_keys(xs: BackendService, names: list[tuple[str, str]]) -> None:
    """422 naming the field of the first unknown key name."""
    if names:
        await xs.call(check_key_names, names)


def modifier_names(text: str | None, where: str) -> list[str]:
    """"shift" or "ctrl+shift" (xdotool style) -> ["shift"] / ["ctrl", "shift"]."""
    if not text:
        return []
    combos = parse_combos(text, where)
    return [name for combo in combos for name in combo]


async def pointer(xs: BackendService, **event: object) -> tuple[int, int]:
    """One /api/v1/tablet event (screen pixels); returns where the pointer ends."""
    validated = POINTER_EVENT.validate(event)
    return await run_pointer_events(xs, [validated], [""])


async def click(xs: BackendService, at: tuple[int, int] | None, button: int, clicks: int,
                modifiers: list[str]) -> tuple[int, int]:
    where = {"x": at[0], "y": at[1]} if at else {}
    return await pointer(xs, action="click", button=button, clicks=clicks, modifiers=modifiers, **where)


async def move(xs: BackendService, at: tuple[int, int], modifiers: Sequence[str] = ()) -> tuple[int, int]:
    return await pointer(xs, action="move", x=at[0], y=at[1], modifiers=list(modifiers))


async def button(xs: BackendService, at: tuple[int, int] | None, down: bool) -> tuple[int, int]:
    where = {"x": at[0], "y": at[1]} if at else {}
    return await pointer(xs, action="down" if down else "up", **where)


async def drag(xs: BackendService, path: list[tuple[int, int]], modifiers: Sequence[str] = (),
               duration_ms: int = 0) -> tuple[int, int]:
    return await pointer(xs, action="drag", path=[list(p) for p in path], modifiers=list(modifiers),
                         duration_ms=duration_ms)


async def scroll(xs: BackendService, at: tuple[int, int] | None, dx: int, dy: int,
                 modifiers: list[str]) -> tuple[int, int]:
    """Wheel clicks: dy > 0 down, dx > 0 right (buttons 5/4, 7/6)."""
    dx = max(-MAX_WHEEL_CLICKS, min(MAX_WHEEL_CLICKS, dx))
    dy = max(-MAX_WHEEL_CLICKS, min(MAX_WHEEL_CLICKS, dy))
    if at:
        await move(xs, at)
    if not (dx or dy):  # a zero scroll is a no-op, not an error (a model may send amount 0)
        return await xs.call(lambda desk: desk.pointer_position())
    return await pointer(xs, action="scroll", dx=dx, dy=dy, modifiers=modifiers)


async def keys(xs: BackendService, text: str | list[str], where: str) -> None:
    """xdotool key syntax: "ctrl+s", "ctrl+a Delete", or a list of combos."""
    combos = parse_combos(text, where)
    await check_keys(xs, [(where, name) for combo in combos for name in combo])
    await xs.call(press_combos, combos)


async def type_text(xs: BackendService, text: str) -> None:
    await run_text(xs, text, 0.0)


async def hold(xs: BackendService, names: list[str], seconds: float) -> None:
    """Keys down, a pause on the event loop (other requests keep running), keys up even when
    the request is cancelled."""
    await xs.call(hold_keys, names, True)
    try:
        await asyncio.sleep(seconds)
    finally:
        await asyncio.shield(xs.call(hold_keys, names, False))


async def pointer_position(xs: BackendService) -> tuple[int, int]:
    return await xs.call(lambda desk: desk.pointer_position())
