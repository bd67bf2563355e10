"""The window list in the shape of i3's / Sway's IPC ``get_tree`` reply, for tools written against
the original system's Sway desktop (they walk ``nodes`` and ``floating_nodes`` and find windows by
``window_properties.class``, ``app_id`` or ``name``).

The tree: root -> one output (the X screen) -> one workspace per EWMH desktop -> each top-level
window. An application's own window (EWMH type normal, transient for nothing: a browser, an
editor, maximised or not) is a tiled ``con`` in the workspace's ``nodes``, where it was on the
original Sway desktop and where such tools look for it; dialogs, transients and utility windows
are ``floating_con`` in its ``floating_nodes``, as Sway floats them. ``rect`` is the frame in
screen pixels, ``window_rect`` the client area relative to the frame, as i3 gives them; ``app_id``
is null, as Sway reports for X11 (Xwayland) windows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from desktopd_contract.windows import WindowInfo
from swayipc.tree import Rect, SwayNode

ROOT_ID, OUTPUT_ID, WORKSPACE_ID_BASE = 1, 2, 100


class I3Container(SwayNode, total=False):
    """An i3 container: Sway's node fields plus the others i3 sends, and desktopd's own."""
    orientation: str
    scratchpad_state: str
    percent: float | None
    urgent: bool
    marks: list[str]
    layout: str
    border: str
    current_border_width: int
    deco_rect: Rect
    geometry: Rect
    window_type: str | None
    sticky: bool
    floating: str
    focus: list[int]
    num: int
    output: str
    active: bool
    primary: bool
    minimized: bool
    maximized: bool


def _rect(box: Rect | None) -> Rect:
    if box is None:
        return {"x": 0, "y": 0, "width": 0, "height": 0}
    return {"x": int(box["x"]), "y": int(box["y"]), "width": int(box["width"]), "height": int(box["height"])}


def _container(**fields: Unpack[I3Container]) -> I3Container:
    """The fields every i3 container has, with i3's defaults."""
    base: I3Container = {
        "id": 0, "type": "con", "orientation": "none", "scratchpad_state": "none", "percent": None,
        "urgent": False, "marks": [], "focused": False, "layout": "splith", "border": "none",
        "current_border_width": 0, "rect": _rect(None), "deco_rect": _rect(None),
        "window_rect": _rect(None), "geometry": _rect(None), "name": None, "window": None,
        "window_type": None, "sticky": False, "fullscreen_mode": 0, "floating": "auto_off",
        "focus": [], "nodes": [], "floating_nodes": [],
    }
    base.update(fields)
    return base


def tiles(window: WindowInfo) -> bool:
    """Whether Sway would tile the window: an ordinary application window, not a dialog."""
    return (window.get("window_type") or "normal") == "normal" and not window.get("transient_for")


def window_container(window: WindowInfo) -> I3Container:
    frame, client = _rect(window.get("frame")), _rect(window.get("client"))
    tiled = tiles(window)
    inside: Rect = {"x": client["x"] - frame["x"], "y": client["y"] - frame["y"],
              "width": client["width"], "height": client["height"]}
    wm_class = window.get("wm_class") or []
    instance = wm_class[0] if len(wm_class) > 0 else None
    klass = wm_class[1] if len(wm_class) > 1 else instance
    return _container(
        id=int(window["id"]), type="con" if tiled else "floating_con",
        floating="auto_off" if tiled else "user_on", border="normal",
        name=window.get("title") or None, window=int(window["id"]),
        window_type=window.get("window_type") or "normal",
        rect=frame, window_rect=inside, geometry={"x": 0, "y": 0, "width": client["width"], "height": client["height"]},
        deco_rect={"x": 0, "y": 0, "width": frame["width"], "height": max(0, client["y"] - frame["y"])},
        focused=bool(window.get("focused")), sticky=window.get("desktop") == -1,
        fullscreen_mode=0, app_id=None, pid=window.get("pid"), visible=bool(window.get("visible")),
        shell="xwayland",
        window_properties={"class": klass, "instance": instance, "title": window.get("title") or "",
                           "transient_for": window.get("transient_for")},
        # desktopd's own fields, for clients that want them.
        minimized=bool(window.get("minimized")), maximized=bool(window.get("maximized")))


def _desktop(window: WindowInfo) -> int:
    """The window's EWMH desktop; sticky (-1) and unknown ones count as the first."""
    desktop = window.get("desktop")
    return desktop if isinstance(desktop, int) and desktop >= 0 else 0


def i3_tree(windows: Sequence[WindowInfo], screen: tuple[int | None, int | None],
            output_name: str) -> I3Container:
    width, height = screen
    whole: Rect = {"x": 0, "y": 0, "width": int(width or 0), "height": int(height or 0)}
    desktops = sorted({_desktop(w) for w in windows} or {0})
    workspaces: list[SwayNode] = []
    for desktop in desktops:
        cons = [window_container(w) for w in windows if _desktop(w) == desktop]
        workspaces.append(_container(
            id=WORKSPACE_ID_BASE + desktop, type="workspace", name=str(desktop + 1), num=desktop + 1,
            rect=whole, nodes=[c for c in cons if c["type"] == "con"],
            floating_nodes=[c for c in cons if c["type"] == "floating_con"],
            focus=[c["id"] for c in reversed(cons)],
            focused=False, output=output_name))
    output = _container(id=OUTPUT_ID, type="output", name=output_name, rect=whole, layout="output",
                        nodes=workspaces, focus=[w["id"] for w in workspaces], active=True, primary=True)
    return _container(id=ROOT_ID, type="root", name="root", rect=whole, nodes=[output], focus=[OUTPUT_ID])
