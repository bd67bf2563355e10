"""Which X window each application's top-level accessible belongs to.

AT-SPI knows nothing of X windows, so match the way a person would: the same process (the
window's _NET_WM_PID is the application's D-Bus peer), then the rectangle (a top-level's screen
extents are its window's client area), then the title as a tie-breaker.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktopd_contract.windows import Bounds, WindowInfo

from .snapshot import Box, Node, WindowRef

MIN_OVERLAP = 0.5  # of the union: two rectangles this alike are the same window
# WM_CLASS classes (lower case) of the applications of the images that register on the AT-SPI bus:
# their windows are missing from a tree read while they start (the browser, XFCE's desktop and panel).
ACCESSIBLE_CLASSES = frozenset({"chromium", "google-chrome", "xfdesktop", "xfce4-panel"})


def _overlap(a: Box, b: Bounds) -> float:
    left, top = max(a["x"], b["x"]), max(a["y"], b["y"])
    right = min(a["x"] + a["width"], b["x"] + b["width"])
    bottom = min(a["y"] + a["height"], b["y"] + b["height"])
    inter = max(0, right - left) * max(0, bottom - top)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return inter / union if union > 0 else 0.0


def _score(top: Node, window: WindowInfo) -> float:
    score = 0.0
    # GTK's top-levels span the window-manager frame, Chromium's its client area.
    rects = [r for r in (window.get("client"), window.get("frame")) if r]
    if top["bounds"] is not None and rects:
        overlap = max(_overlap(top["bounds"], r) for r in rects)
        if overlap < MIN_OVERLAP:
            return 0.0
        score += overlap
    elif not (top["name"] and top["name"] == window.get("title")):
        return 0.0
    if top["name"] and top["name"] == window.get("title"):
        score += 0.5
    return score


def window_summary(window: WindowInfo) -> WindowRef:
    return {"id": window["id"], "frame_id": window.get("frame_id"), "title": window.get("title"),
            "wm_class": window.get("wm_class"), "pid": window.get("pid")}


def attach_windows(apps: list[Node], windows: Sequence[WindowInfo]) -> None:
    """Set ``window`` on every top-level (an application's child) that matches an X window."""
    taken: set[int] = set()
    for app in apps:
        own = [w for w in windows if app.get("pid") is not None and w.get("pid") == app["pid"]]
        pool = own or [w for w in windows if w.get("pid") is None]
        for top in app["children"]:
            scored = [(_score(top, w), w) for w in pool if w["id"] not in taken and w.get("visible", True)]
            scored = [(s, w) for s, w in scored if s > 0]
            if not scored:
                top["window"] = None
                continue
            best = max(scored, key=lambda pair: pair[0])[1]
            taken.add(best["id"])
            top["window"] = window_summary(best)


def keep_window(apps: list[Node], window_id: int) -> list[Node]:
    """Only the top-levels of that X window (client or frame id), and the apps that have one."""
    out: list[Node] = []
    for app in apps:
        tops = [t for t in app["children"] if (ref := t.get("window")) and window_id in (
            ref["id"], ref["frame_id"])]
        if tops:
            out.append({**app, "children": tops})
    return out


def windows_not_in_tree(apps: list[Node], windows: Sequence[WindowInfo]) -> list[WindowRef]:
    """Shown X windows the tree should have a top-level for and has not (after attach_windows): of
    an application on the bus (its pid), or of one known to register there (not yet registered:
    a desktop still starting). A window of a program without accessibility (xterm) is not one."""
    attached = {ref["id"] for app in apps for top in app["children"] if (ref := top.get("window"))}
    on_bus = {app["pid"] for app in apps if app.get("pid") is not None}
    missing = []
    for window in windows:
        if not window.get("visible", True) or window["id"] in attached:
            continue
        classes = {name.lower() for name in (window.get("wm_class") or ()) if name}
        if window.get("pid") in on_bus or classes & ACCESSIBLE_CLASSES:
            missing.append(window_summary(window))
    return missing
