"""Waiting, bounded, for a window manager or an application to carry a window action out: on
the X connection's events (structure and property changes), never a fixed sleep."""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Mapping

from Xlib import X, error as xerror
from Xlib.display import Display
from Xlib.protocol.rq import Event

from desktopd_contract.windows import WindowInfo

from .errors import WindowNotFound

ACTION_SETTLE_S = 1.0  # upper bound on waiting for the WM/app to carry an action out

EventSink = Callable[[Event], None] | None   # events read while waiting go on to (e.g.) the keyboard
Described = WindowInfo


def wait_event(dpy: Display, deadline: float, on_event: EventSink) -> bool:
    """Block until the connection has an event or ``deadline``; False on timeout."""
    while not dpy.pending_events():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        select.select([dpy.fileno()], [], [], remaining)
    event = dpy.next_event()
    if on_event is not None:
        on_event(event)
    return True


def action_done(info: Described, action: str, params: Mapping[str, float], screen_width: int) -> bool:
    """Whether the window as described shows ``action`` carried out."""
    if action == "move":
        return (info["frame"]["x"], info["frame"]["y"]) == (params["x"], params["y"])
    if action == "resize":
        return (info["client"]["width"], info["client"]["height"]) == (params["width"], params["height"])
    if action == "minimize":
        return bool(info["minimized"] or not info["visible"])
    if action == "maximize":
        return bool(info["maximized"] or info["frame"]["width"] >= screen_width)
    if action == "focus":
        return bool(info["focused"])
    if action == "restore":
        return bool(info["visible"] and not info["minimized"] and not info["maximized"])
    return True


def settled_window(dpy: Display, wid: int, action: str, params: Mapping[str, float],
                   describe: Callable[[int], Described], on_event: EventSink) -> Described | None:
    """The window after the WM/app carried the action out, or as it is when the wait ends;
    None when it is gone."""
    root = dpy.screen().root
    window = dpy.create_resource_object("window", wid)
    try:
        window.change_attributes(event_mask=X.StructureNotifyMask | X.PropertyChangeMask)
        root.change_attributes(event_mask=X.PropertyChangeMask)
    except xerror.XError:
        return None
    deadline = time.monotonic() + ACTION_SETTLE_S
    screen_width = dpy.screen().width_in_pixels
    try:
        while True:
            try:
                info = describe(wid)
            except WindowNotFound:
                return None
            if action_done(info, action, params, screen_width) or not wait_event(dpy, deadline, on_event):
                return info
    finally:
        try:
            window.change_attributes(event_mask=X.NoEventMask)
            root.change_attributes(event_mask=X.NoEventMask)
        except xerror.XError:
            pass


def wait_gone(dpy: Display, wid: int, listed: Callable[[], list[Described]], on_event: EventSink) -> bool:
    """True once no listed window has id ``wid`` (within ACTION_SETTLE_S)."""
    root = dpy.screen().root
    root.change_attributes(event_mask=X.SubstructureNotifyMask)
    deadline = time.monotonic() + ACTION_SETTLE_S
    try:
        while True:
            if not any(info["id"] == wid for info in listed()):
                return True
            if not wait_event(dpy, deadline, on_event):
                return False
    finally:
        root.change_attributes(event_mask=X.NoEventMask)
