"""Whether Chromium's window, as its pages report it, is the window Sway shows (Wayland only).

On Wayland Chromium draws its own frame: its outer size counts a shadow on every side of the
window the compositor places, and the sidecar's screen bounds assume the window's top-left at the
screen's (layout/geometry/spaces.py). That holds for a tiled window at the output's corner once Chromium
has taken Sway's configure. Right after Sway tiles (or floats) the window, Chromium still reports
the old window for a moment, with its old shadow, and maps input with it; a box computed then is
off by the difference. So the evidence asked for is: the outer size a page reports is Sway's
window grown by the same shadow both ways, at the screen's corner, unchanged across two animation
frames (Chromium has drawn, and Sway shown, a frame of that size). Until then, within a bound,
/layout waits; after it, it says why the screen bounds are not exact.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import NamedTuple

from swayipc.ipc import IpcError, SwayIpc, find_socket
from swayipc.tree import window_nodes

from ..cdp.connection import CDPError, CDPTimeout
from ..layout.runtime.seams import Page

SETTLE_S = 1.0   # the longest /layout waits for Chromium to take Sway's window
# The page's window size now, and after two animation frames (null in a tab not shown: it has none).
SIZE_NOW = "document.visibilityState === 'visible' ? [outerWidth, outerHeight] : null"
SIZE_AFTER_FRAMES = ("document.visibilityState !== 'visible' ? null : new Promise(done => requestAnimationFrame("
                     "() => requestAnimationFrame(() => done([outerWidth, outerHeight]))))")
NOT_SHOWN = "the tab is not shown in its window"


class Rect(NamedTuple):
    x: int
    y: int
    width: int
    height: int


Size = tuple[float, float]


def sway_windows(pid: int) -> tuple[Rect, ...]:
    """The rectangles of the windows Sway shows for process ``pid`` (screen pixels)."""
    ipc = SwayIpc(find_socket())
    try:
        tree = ipc.tree()
    finally:
        ipc.close()
    return tuple(Rect(node["rect"]["x"], node["rect"]["y"], node["rect"]["width"], node["rect"]["height"])
                 for node in window_nodes(tree) if node.get("pid") == pid)


def mismatch(outer: Size, windows: tuple[Rect, ...]) -> str | None:
    """None when one of ``windows`` is Chromium's reported window less an even shadow, at the
    screen's corner; else why the screen bounds are not exact."""
    if not windows:
        return "Sway shows no window of this Chromium"
    for window in windows:
        wider, taller = outer[0] - window.width, outer[1] - window.height
        if wider == taller and wider >= 0 and wider % 2 == 0:
            if (window.x, window.y) != (0, 0):
                return (f"Sway shows the window at ({window.x}, {window.y}); Chromium on Wayland does "
                        "not know where its window is, and its boxes assume (0, 0)")
            return None
    shown = ", ".join(f"{w.width}x{w.height} at ({w.x}, {w.y})" for w in windows)
    return (f"Chromium reports a {outer[0]:g}x{outer[1]:g} window (with its shadow) that is not the "
            f"window Sway shows ({shown}): it has not taken Sway's last configure yet, or it floats "
            "with an uneven shadow")


class SwayWindowCheck:
    """The layout service's window check (layout/runtime/seams.py WindowCheck) for Chromium on Sway."""

    def __init__(self, pid: Callable[[], int | None], settle_s: float = SETTLE_S,
                 windows: Callable[[int], tuple[Rect, ...]] = sway_windows) -> None:
        """``pid``: Chromium's browser process now; ``windows``: where the compositor shows a
        process's windows (Sway's tree)."""
        self._pid = pid
        self._settle_s = settle_s
        self._windows = windows
        # The last (size, windows) seen settled, and the last one waited for in vain: a request
        # that finds either again answers at once.
        self._settled: tuple[Size, tuple[Rect, ...]] | None = None
        self._given_up: tuple[Size, tuple[Rect, ...]] | None = None

    async def unsettled(self, page: Page) -> str | None:
        pid = self._pid()
        if pid is None:
            return "Chromium is not running"
        if page.crashed or page.pending_navigation is not None:
            return "the tab's page does not answer now (crashed, or loading a new document)"
        try:
            return await self._wait(page, pid)
        except (CDPError, CDPTimeout) as exc:
            return f"the page did not say its window size ({exc})"
        except (IpcError, OSError) as exc:
            return f"Sway's IPC did not say where the window is ({exc})"

    async def _wait(self, page: Page, pid: int) -> str | None:
        deadline = time.monotonic() + self._settle_s
        size = await _size(page, SIZE_NOW, self._settle_s)
        if size is None:
            return NOT_SHOWN
        seen = (size, await asyncio.to_thread(self._windows, pid))
        if seen == self._settled:
            return None
        reason = mismatch(*seen)
        if seen == self._given_up and reason is not None:
            return reason
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._given_up = seen
                return reason
            try:
                after = await _size(page, SIZE_AFTER_FRAMES, left)
            except CDPTimeout:
                continue            # no frame in time: the deadline has passed
            if after is None:
                return NOT_SHOWN
            now = (after, await asyncio.to_thread(self._windows, pid))
            reason = mismatch(*now)
            if reason is None and now == seen:
                self._settled = now
                return None
            seen = now


async def _size(page: Page, expression: str, timeout: float) -> Size | None:
    reply = await page.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": True}, timeout=timeout)
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 2:
        return None
    return float(value[0]), float(value[1])
