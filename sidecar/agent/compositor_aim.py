"""Visible acts where the browser's window must be checked against the compositor's (Chromium on
Wayland: sidecar/browser/compositor_window.py).

Right after Sway tiles or floats Chromium, Chromium reports its old window for a moment and maps
input with it, so a point computed then is off. A visible act therefore aims only once the tab's
screen bounds are exact (the layout's window check, which waits a bounded time for that) and
otherwise answers 409 ``screen_bounds_not_exact`` with the check's reason.

Rarely Chromium still maps input with its old window after its size settled, which no page metric
shows. So before a press the pointer is moved to the point and the element's window must report
that move over the element; while it reports it elsewhere (or not at all) the act waits for the
page's next frame and aims again, within a bound, and its answer says what the page saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypedDict, TypeVar

from httpapi.errors import ApiError

from ..cdp.connection import CDPError
from ..layout.runtime.seams import Page, WindowCheck
from ..page_js import load_js
from .page_scripts import PAINTED
from .pointer import Input
from .resolve import Element

CONFIRM_BUDGET_S = 3.0  # how long a press waits for the page to see the pointer over its element
SEEN_S = 0.5            # how long one move waits for the page to report it

# Resolves with the next pointermove the element's window sees ({x, y, inside}), or null.
_POINTER_SEEN = load_js("sidecar.agent", "pointer_seen.js")

Aimed = TypeVar("Aimed")


class PointerSeen(TypedDict):
    """A pointer move as the element's window saw it (CSS px of that window's viewport)."""
    x: float
    y: float
    inside: bool            # over the element (or inside it)


class PointerCheck(TypedDict):
    """What the act's answer says of the check: the move the page saw over the element, and the
    aims before it that the page saw elsewhere (null: not at all)."""
    seen: PointerSeen
    misses: list[PointerSeen | None]


async def exact_bounds(page: Page, check: WindowCheck) -> None:
    """Return once the tab's screen bounds are exact (the check waits, bounded); else a 409."""
    reason = await check.unsettled(page)
    if reason is not None:
        raise ApiError(409, "screen_bounds_not_exact",
                       f"the tab's screen bounds are not exact, so a visible act would miss: {reason}; "
                       "retry, or use mode=cdp", extra={"reason": reason})


async def confirm_pointer(page: Page, element: Element, check: WindowCheck, pointer: Input,
                          aim: Callable[[], Awaitable[Aimed]], point_of: Callable[[Aimed], tuple[float, float]],
                          timeout: float) -> tuple[Aimed, PointerCheck]:
    """The aim to press at, once the page saw the pointer at its point over the element; ``aim``
    measures again (after the bounds are checked exact), ``point_of`` is its screen point."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONFIRM_BUDGET_S
    misses: list[PointerSeen | None] = []
    while True:
        await exact_bounds(page, check)
        aimed = await aim()
        point = point_of(aimed)
        seen = await _pointer_seen_at(element, pointer, point, timeout)
        if seen is not None and seen["inside"]:
            return aimed, {"seen": seen, "misses": misses}
        misses.append(seen)
        if loop.time() >= deadline:
            raise ApiError(409, "pointer_not_confirmed",
                           f"the page did not see the pointer over ref {element.ref} at {point} within "
                           f"{CONFIRM_BUDGET_S:g} s (Chromium maps input with another window than it "
                           "shows); nothing was pressed: retry, or use mode=cdp",
                           field="ref", extra={"misses": list(misses)})
        # Chromium maps input with a window it has not drawn yet: aim again after its next frame.
        await page.send("Runtime.evaluate", {"expression": PAINTED, "awaitPromise": True}, timeout=timeout)


async def _pointer_seen_at(element: Element, pointer: Input, point: tuple[float, float],
                           timeout: float) -> PointerSeen | None:
    """Move the pointer to ``point`` and return the move as the element's window saw it; None when
    the page did not report it unmistakably. A step beside it first, seen too, so that the last
    move is a change whatever the pointer's place (Sway sends motion only when the pointer moves),
    and so that a report of the step arriving late is not taken for the point's."""
    x, y = point
    beside = await _move_seen(element, pointer, (x - 1, y) if x >= 1 else (x + 1, y), timeout)
    seen = await _move_seen(element, pointer, point, timeout)
    if beside is None or seen is None or (seen["x"], seen["y"]) == (beside["x"], beside["y"]):
        return None
    return seen


async def _move_seen(element: Element, pointer: Input, point: tuple[float, float],
                     timeout: float) -> PointerSeen | None:
    """Move the pointer to ``point``: the next move the element's window saw (bounded), or None."""
    try:
        promise = await element.call_pending(_POINTER_SEEN, int(SEEN_S * 1000), timeout=timeout)
    except CDPError:
        promise = None
    await pointer.move(*point)      # moved even when the page cannot report it: the next try starts beside
    if promise is None:
        return None
    try:
        reply = await element.session.send("Runtime.awaitPromise", {
            "promiseObjectId": promise, "returnByValue": True}, timeout=SEEN_S + timeout)
    except CDPError:
        return None
    return (reply.get("result") or {}).get("value")
