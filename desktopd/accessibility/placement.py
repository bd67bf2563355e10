"""Where the AT-SPI extents are on the screen.

On X11 an application reports its objects' extents in screen pixels (``SCREEN``). Under Wayland a
client never learns where its window is, so GTK and Chromium report extents relative to their
window's surface (``WINDOW``): each top-level is matched to its window in the compositor's window
list (same process, then the title) and every box under it is moved by that window's position.
A box that cannot be placed exactly gets null bounds and says why, never a guessed place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from desktopd_contract.windows import Bounds, WindowInfo

from .snapshot import Node, rect, walk
from .xwindows import window_summary

SCREEN = "screen"   # a backend's ``atspi_extents``: applications report screen pixels
WINDOW = "window"   # ... or pixels relative to their window
SCREEN_SOURCE = "atspi_screen"        # the application's own screen extents (X11)
WINDOW_SOURCE = "compositor_window"   # window-relative extents + the compositor's window position


class PlacementSummary(TypedDict, total=False):
    """How the tree's boxes were placed: the source, and with window-relative extents the counts."""
    source: str
    placed_top_levels: int
    unplaced_top_levels: int


NO_WINDOW = ("no window of this process with this title in the compositor's window list: "
             "Wayland gives no position for it")


def unplace(node: Node, reason: str) -> None:
    """Null bounds and the reason, on the node and every descendant that had a box."""
    for inner in walk([node]):
        if inner["bounds"] is not None:
            inner["bounds"] = inner["center"] = None
            inner["bounds_unavailable"] = reason


def _shift(node: Node, dx: int, dy: int) -> None:
    for inner in walk([node]):
        box = inner["bounds"]
        if box is not None:
            inner["bounds"], inner["center"] = rect(box["x"] + dx, box["y"] + dy, box["width"], box["height"])


def _window_of(top: Node, own: list[WindowInfo], showing_tops: int) -> WindowInfo | None:
    """The top-level's window among its process's windows: the one with its title, or the only
    window of a process whose one top-level on screen this is."""
    titled = [w for w in own if top["name"] and w.get("title") == top["name"]]
    if len(titled) == 1:
        return titled[0]
    if not titled and len(own) == 1 and showing_tops == 1 and "showing" in top["states"]:
        return own[0]
    return None


def _inset(top: Node, client: Bounds) -> int | str:
    """How far inside the top-level's extents its window's area starts: 0 when they are the
    same size; the border's width when the top-level is larger by the same even amount both ways
    (Chromium draws a shadow of one width on every side of its surface); else why it is unknown."""
    box = top["bounds"]
    if box is None:
        return 0   # nothing of its own to compare; its descendants are placed by the window
    extra_w, extra_h = box["width"] - client["width"], box["height"] - client["height"]
    if (box["x"], box["y"]) == (0, 0) and extra_w == extra_h >= 0 and extra_w % 2 == 0:
        return int(extra_w // 2)
    return (f"the top-level's window-relative extents {box['width']}x{box['height']} at "
            f"({box['x']},{box['y']}) are not its window's area {client['width']}x{client['height']} "
            f"with one border width around it (client-side decorations with an uneven shadow, or a "
            f"resize in flight): its offset is unknown")


def place_in_windows(apps: list[Node], windows: Sequence[WindowInfo]) -> PlacementSummary:
    """Window-relative extents moved to screen pixels, top-level by top-level; sets ``window``
    and ``placement`` on each top-level. Returns the counts of placed and unplaced top-levels."""
    placed = unplaced = 0
    taken: set[int] = set()
    for app in apps:
        own = [w for w in windows if app.get("pid") is not None and w.get("pid") == app["pid"]
               and w.get("visible", True)]
        showing = [top for top in app["children"] if "showing" in top["states"]]
        for top in app["children"]:
            window = _window_of(top, [w for w in own if w["id"] not in taken], len(showing))
            top["window"] = window_summary(window) if window is not None else None
            if window is not None:
                taken.add(window["id"])
            inset = NO_WINDOW if window is None else _inset(top, window["client"])
            if window is None or isinstance(inset, str):
                reason = inset if isinstance(inset, str) else NO_WINDOW
                unplace(top, reason)
                top["placement"] = {"source": None, "reason": reason}
                unplaced += 1
                continue
            x, y = window["client"]["x"] - inset, window["client"]["y"] - inset
            _shift(top, x, y)
            top["placement"] = {"source": WINDOW_SOURCE, "window": window["id"], "offset": {"x": x, "y": y},
                                "inset": inset}
            placed += 1
    return {"source": WINDOW_SOURCE, "placed_top_levels": placed, "unplaced_top_levels": unplaced}
