"""A top-level window as desktopd describes it (GET /api/v1/windows, a window action's answer):
the shape both backends build (desktopd/x11/windows.py, desktopd/sway/windows.py) and what its
readers (the accessibility tree, OSWorld's routes, the episode reset) may rely on."""

from __future__ import annotations

from typing import Literal, TypedDict


class Bounds(TypedDict):
    """A rectangle in screen pixels."""
    x: int
    y: int
    width: int
    height: int
    space: Literal["screen"]


class WindowInfo(TypedDict):
    id: int                      # the client window (X11), the container (Sway's con_id)
    frame_id: int
    title: str
    wm_class: list[str | None] | None   # [instance, class]; Sway's app_id stands in for either
    pid: int | None
    desktop: int | None
    stacking: int                # 0 = bottom
    focused: bool
    minimized: bool
    maximized: bool
    visible: bool
    window_type: str             # EWMH's, lower case: "normal", "dialog", "utility", ...
    transient_for: int | None    # the window a dialog belongs to
    frame: Bounds                # with decorations
    client: Bounds               # the application's own area


class SwayWindowInfo(WindowInfo):
    app_id: str | None
    shell: str | None            # "xdg_shell" or "xwayland"


class WindowActionResult(TypedDict, total=False):
    id: int
    action: str
    method: str                  # how it was carried out (an EWMH message, a Sway command, ...)
    closed: bool                 # close: whether the window went away in time
    window: WindowInfo | None    # other actions: the window afterwards (None: it is gone)

