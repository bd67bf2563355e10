"""The window tree and window actions on a bare Xvfb (no window manager): the fallbacks."""

from __future__ import annotations

import time

import pytest

from desktopd.x11.desktop import X11Desktop, WindowNotFound

pytestmark = pytest.mark.x11


def find(desktop: X11Desktop, title: str) -> dict:
    matches = [w for w in desktop.windows() if w["title"] == title]
    assert len(matches) == 1, desktop.windows()
    return matches[0]


def test_tree_shows_windows_with_true_geometry(desktop: X11Desktop, start_recorder) -> None:
    red = start_recorder("300x200+50+60", "#ff0000", "Red wïndow")
    start_recorder("120x90+700+400", "#00ff00", "green")
    wm, windows = desktop.window_manager(), desktop.windows()
    assert (wm["managed"], wm["name"], wm["windows"]) == (False, None, len(windows))
    assert wm["active"] in {None, *(w["id"] for w in windows if w["focused"])}
    window = find(desktop, "Red wïndow")
    ready = red.ready
    assert window["client"] == {"x": ready["x"], "y": ready["y"], "width": 300, "height": 200,
                                "space": "screen"}
    assert (window["client"]["x"], window["client"]["y"]) == (50, 60)
    assert window["frame"] == window["client"]  # no WM: no decorations
    assert window["wm_class"][1].lower() == "desktopdrecorder"
    assert window["visible"] and not window["minimized"]
    green = find(desktop, "green")
    assert green["stacking"] > window["stacking"]  # mapped later: above
    # The geometry is where the pixels are.
    assert desktop.capture().getpixel((50 + 299, 60 + 199)) == (255, 0, 0)


def test_focus_follows_the_action(desktop: X11Desktop, start_recorder) -> None:
    first = start_recorder("200x100+10+10", "#ff0000", "first")
    start_recorder("200x100+300+10", "#0000ff", "second")
    desktop.pointer_move(1000, 700)  # away from both: nothing under the pointer
    window = find(desktop, "first")
    result = desktop.window_action(window["id"], "focus")
    assert result["method"] == "set_input_focus"
    assert result["window"]["focused"]
    assert [w["title"] for w in desktop.windows() if w["focused"]] == ["first"]
    desktop.type_text("k")
    assert first.wait_for(lambda e: e.get("event") == "key_down")["char"] == "k"


def test_move_and_resize(desktop: X11Desktop, start_recorder) -> None:
    start_recorder("200x100+10+10", "#ff0000", "mover")
    wid = find(desktop, "mover")["id"]
    moved = desktop.window_action(wid, "move", x=400, y=300)["window"]
    assert (moved["frame"]["x"], moved["frame"]["y"]) == (400, 300)
    resized = desktop.window_action(wid, "resize", width=333, height=222)["window"]
    assert (resized["client"]["width"], resized["client"]["height"]) == (333, 222)
    # Tk resizes its inner window when it processes the ConfigureNotify: give it a moment.
    deadline = time.monotonic() + 10
    while desktop.capture().getpixel((400 + 332, 300 + 221)) != (255, 0, 0):
        assert time.monotonic() < deadline, "the client never filled its resized window"
        time.sleep(0.05)


def test_minimize_maximize_restore_degrade_without_wm(desktop: X11Desktop, start_recorder) -> None:
    start_recorder("200x100+10+10", "#ff0000", "states")
    wid = find(desktop, "states")["id"]
    minimized = desktop.window_action(wid, "minimize")
    assert minimized["method"] == "unmap"
    assert minimized["window"]["minimized"] and not minimized["window"]["visible"]
    restored = desktop.window_action(wid, "restore")["window"]
    assert restored["visible"] and not restored["minimized"]
    maximized = desktop.window_action(wid, "maximize")["window"]
    assert maximized["client"] == {"x": 0, "y": 0, "width": 1280, "height": 800, "space": "screen"}
    back = desktop.window_action(wid, "restore")["window"]
    assert back["client"] == {"x": 10, "y": 10, "width": 200, "height": 100, "space": "screen"}


def test_close_asks_the_client_politely(desktop: X11Desktop, start_recorder) -> None:
    recorder = start_recorder("200x100+10+10", "#ff0000", "closer")
    wid = find(desktop, "closer")["id"]
    result = desktop.window_action(wid, "close")
    assert result == {"id": wid, "action": "close", "method": "WM_DELETE_WINDOW", "closed": True}
    recorder.wait_for(lambda e: e.get("event") == "delete_window")
    assert not [w for w in desktop.windows() if w["id"] == wid]


def test_unknown_window_and_bad_actions(desktop: X11Desktop, start_recorder) -> None:
    start_recorder("200x100+10+10", "#ff0000", "target")
    wid = find(desktop, "target")["id"]
    with pytest.raises(WindowNotFound):
        desktop.window_action(0x7FFFFFF, "focus")
    with pytest.raises(ValueError, match="^action:"):
        desktop.window_action(wid, "explode")
    with pytest.raises(ValueError, match="^x:"):
        desktop.window_action(wid, "move", x="left", y=3)
    with pytest.raises(ValueError, match="^width:"):
        desktop.window_action(wid, "resize", width=0, height=10)
