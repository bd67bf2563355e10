"""Input reaches a window in the order it was sent, also under a window manager that grabs
button presses synchronously (xfwm4's click-to-focus and raise-on-click grab): that grab holds
later pointer events in the server, and keys typed after a click used to overtake the click."""

from __future__ import annotations

import pytest

from desktopd.x11.desktop import X11Desktop
from testbed.recorder import Recorder

pytestmark = pytest.mark.x11

ROUNDS = 60


def test_a_key_typed_after_a_click_arrives_after_the_click(desktop: X11Desktop, managed: Recorder) -> None:
    x = managed.ready["x"] + managed.ready["width"] // 2
    y = managed.ready["y"] + managed.ready["height"] // 2
    for round_ in range(ROUNDS):
        desktop.pointer_move(x + round_ % 7, y)      # each click somewhere new, like an agent's
        desktop.pointer_button(1, True)
        desktop.pointer_button(1, False)
        desktop.type_text("k")
    order = []
    while order.count("K") < ROUNDS:
        event = managed.wait_for(lambda e: e.get("event") in ("button_down", "key_down"))
        order.append("B" if event["event"] == "button_down" else "K")
    assert "".join(order) == "BK" * ROUNDS


def test_a_click_after_typing_arrives_after_the_keys(desktop: X11Desktop, managed: Recorder) -> None:
    x = managed.ready["x"] + managed.ready["width"] // 2
    y = managed.ready["y"] + managed.ready["height"] // 2
    for round_ in range(ROUNDS):
        desktop.type_text("ab")
        desktop.pointer_move(x + round_ % 7, y)
        desktop.pointer_button(1, True)
        desktop.pointer_button(1, False)
    order = []
    while order.count("B") < ROUNDS:
        event = managed.wait_for(lambda e: e.get("event") in ("button_down", "key_down"))
        order.append("B" if event["event"] == "button_down" else event["keysym"])
    assert "".join(order) == "abB" * ROUNDS
