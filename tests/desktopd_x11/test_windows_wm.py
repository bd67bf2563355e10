"""The window tree and actions under a real window manager (xfwm4): EWMH paths."""

from __future__ import annotations

import pytest

from desktopd.x11.desktop import X11Desktop

pytestmark = pytest.mark.x11


def find(desktop: X11Desktop, title: str) -> dict:
    return next(w for w in desktop.windows() if w["title"] == title)


def test_ewmh_tree_has_frame_and_client_geometry(desktop: X11Desktop, managed) -> None:
    wm = desktop.window_manager()
    assert wm["managed"] and wm["name"].lower().startswith("xfwm4")
    window = find(desktop, "managed")
    frame, client = window["frame"], window["client"]
    assert window["frame_id"] != window["id"]  # reparented into a decorated frame
    assert (client["width"], client["height"]) == (300, 200)
    # Decorations surround the client: the frame contains it, with a title bar on top.
    assert frame["x"] <= client["x"] and frame["y"] < client["y"]
    assert frame["x"] + frame["width"] >= client["x"] + client["width"]
    assert frame["y"] + frame["height"] >= client["y"] + client["height"]
    assert window["desktop"] == 0 and window["focused"] and window["visible"]
    # The client area really holds the window's pixels.
    image = desktop.capture()
    assert image.getpixel((client["x"] + 5, client["y"] + 5)) == (255, 0, 0)


def test_ewmh_actions(desktop: X11Desktop, managed) -> None:
    wid = find(desktop, "managed")["id"]
    moved = desktop.window_action(wid, "move", x=200, y=150)
    assert moved["method"] == "_NET_MOVERESIZE_WINDOW"
    assert (moved["window"]["frame"]["x"], moved["window"]["frame"]["y"]) == (200, 150)
    resized = desktop.window_action(wid, "resize", width=400, height=300)["window"]
    assert (resized["client"]["width"], resized["client"]["height"]) == (400, 300)
    maximized = desktop.window_action(wid, "maximize")["window"]
    assert maximized["maximized"] and maximized["frame"]["width"] == 1280
    restored = desktop.window_action(wid, "restore")["window"]
    assert not restored["maximized"] and restored["client"]["width"] == 400
    minimized = desktop.window_action(wid, "minimize")
    assert minimized["method"] == "WM_CHANGE_STATE"
    assert minimized["window"]["minimized"] and not minimized["window"]["visible"]
    focused = desktop.window_action(wid, "focus")
    assert focused["method"] == "_NET_ACTIVE_WINDOW"
    assert focused["window"]["focused"] and not focused["window"]["minimized"]


def test_ewmh_close(desktop: X11Desktop, managed) -> None:
    wid = find(desktop, "managed")["id"]
    result = desktop.window_action(wid, "close")
    assert result["method"] == "_NET_CLOSE_WINDOW" and result["closed"]
    managed.wait_for(lambda e: e.get("event") == "delete_window")
