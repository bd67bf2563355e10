"""Pointer input through XTEST lands at exact coordinates in a real Tk client."""

from __future__ import annotations

import pytest

from desktopd.x11.desktop import X11Desktop

pytestmark = pytest.mark.x11

BUTTON1_MASK = 1 << 8


@pytest.fixture
def recorder(start_recorder):
    return start_recorder("400x300+100+100")


def test_click_lands_at_exact_coordinates(desktop: X11Desktop, recorder) -> None:
    for x, y in ((150, 160), (499, 399), (100, 100)):
        desktop.pointer_move(x, y)
        assert desktop.pointer_position() == (x, y)
        desktop.pointer_button(1, True)
        desktop.pointer_button(1, False)
        down = recorder.wait_for(lambda e: e.get("event") == "button_down")
        up = recorder.wait_for(lambda e: e.get("event") == "button_up")
        assert (down["button"], down["x"], down["y"]) == (1, x, y)
        assert (up["button"], up["x"], up["y"]) == (1, x, y)


@pytest.mark.parametrize("button", [2, 3])
def test_middle_and_right_buttons(desktop: X11Desktop, recorder, button: int) -> None:
    desktop.pointer_move(300, 250)
    desktop.pointer_button(button, True)
    desktop.pointer_button(button, False)
    event = recorder.wait_for(lambda e: e.get("event") == "button_down")
    assert (event["button"], event["x"], event["y"]) == (button, 300, 250)


def test_drag_moves_with_the_button_held(desktop: X11Desktop, recorder) -> None:
    desktop.pointer_move(150, 150)
    desktop.pointer_button(1, True)
    path = [(160, 155), (200, 180), (300, 250), (420, 330)]
    for x, y in path:
        desktop.pointer_move(x, y)
    desktop.pointer_button(1, False)
    down = recorder.wait_for(lambda e: e.get("event") == "button_down")
    assert (down["x"], down["y"]) == (150, 150)
    events = recorder.collect_until(lambda e: e.get("event") == "button_up")
    dragged = [(e["x"], e["y"]) for e in events
               if e.get("event") == "motion" and e["state"] & BUTTON1_MASK]
    # Tk coalesces queued motion events, so some path points may be folded together; what it
    # reports must be path points, in order, ending at the last one.
    assert dragged and dragged[-1] == path[-1]
    assert [p for p in path if p in dragged] == dragged
    assert (events[-1]["x"], events[-1]["y"]) == (420, 330)


def test_scroll_sends_wheel_buttons(desktop: X11Desktop, recorder) -> None:
    desktop.pointer_move(250, 250)
    desktop.scroll(0, 2)
    desktop.scroll(0, -1)
    desktop.pointer_button(1, True)  # end marker
    desktop.pointer_button(1, False)
    events = recorder.collect_until(lambda e: e.get("event") == "button_down" and e["button"] == 1)
    wheel = [e["button"] for e in events if e.get("event") == "button_down" and e["button"] != 1]
    assert wheel == [5, 5, 4]
    assert all((e["x"], e["y"]) == (250, 250) for e in events if e.get("event") == "button_down")


def test_horizontal_scroll_uses_buttons_6_and_7(desktop: X11Desktop, xserver) -> None:
    # Tk 8.6 folds buttons 6/7 away; watch the raw ButtonPress events on a plain X window.
    from Xlib import X
    from Xlib import display as xdisplay

    dpy = xdisplay.Display(xserver.display)
    try:
        root = dpy.screen().root
        window = root.create_window(600, 500, 100, 100, 0, X.CopyFromParent,
                                    event_mask=X.ButtonPressMask)
        window.map()
        dpy.sync()
        desktop.pointer_move(650, 550)
        desktop.scroll(2, 0)
        desktop.scroll(-1, 0)
        buttons = []
        while len(buttons) < 3:
            event = dpy.next_event()  # events are already queued: scroll() synced the server
            if event.type == X.ButtonPress:
                buttons.append((event.detail, event.root_x, event.root_y))
        assert buttons == [(7, 650, 550), (7, 650, 550), (6, 650, 550)]
    finally:
        dpy.close()


@pytest.mark.parametrize("x, y, field", [(-1, 10, "x"), (1280, 10, "x"), (10, 800, "y")])
def test_off_screen_coordinates_name_the_field(desktop: X11Desktop, x, y, field) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        desktop.pointer_move(x, y)


def test_bad_button_is_rejected(desktop: X11Desktop) -> None:
    with pytest.raises(ValueError, match="^button:"):
        desktop.pointer_button(0, True)
