"""POST /api/v1/computer/openai on a real Xvfb: each computer_call action, checked in X clients."""

from __future__ import annotations

import pytest
from PIL import Image

from .exchange import CONTROL_MASK, SHIFT_MASK, png, post_action

pytestmark = pytest.mark.x11

PATH = "/api/v1/computer/openai"


def call(desktopd, body, query="?settle=0", status=200):
    return post_action(desktopd, PATH, body, query, status)


def screenshot_of(output) -> Image.Image:
    assert output["type"] == "computer_screenshot"
    prefix = "data:image/png;base64,"
    assert output["image_url"].startswith(prefix)
    return png(output["image_url"][len(prefix):])


@pytest.mark.parametrize("button, number", [("left", 1), ("right", 3), ("wheel", 2), ("back", 8),
                                             ("forward", 9)])
def test_click_buttons(desktopd, pointer_recorder, button, number):
    body = call(desktopd, {"call_id": "call_1", "action": {"type": "click", "button": button,
                                                           "x": 150, "y": 160}})
    assert body["type"] == "computer_call_output" and body["call_id"] == "call_1"
    assert screenshot_of(body["output"]).size == (1280, 800)
    assert pointer_recorder.presses(1) == [{"ev": "press", "b": number, "x": 150, "y": 160, "state": 0}]


def test_click_with_held_keys_and_double_click(desktopd, pointer_recorder):
    call(desktopd, {"action": {"type": "click", "x": 170, "y": 180, "keys": ["CTRL", "SHIFT"]}})
    assert pointer_recorder.presses(1)[0]["state"] == CONTROL_MASK | SHIFT_MASK
    call(desktopd, {"action": {"type": "double_click", "x": 200, "y": 210}})
    assert [(e["b"], e["x"], e["y"]) for e in pointer_recorder.presses(2)] == [(1, 200, 210)] * 2


def test_drag_follows_the_path(desktopd, pointer_recorder):
    path = [{"x": 120, "y": 220}, {"x": 300, "y": 220}, {"x": 300, "y": 350}]
    body = call(desktopd, {"action": {"type": "drag", "path": path}})
    assert body["executed"][0]["path"] == [[120, 220], [300, 220], [300, 350]]
    events = pointer_recorder.collect("release", 1)
    press = next(e for e in events if e["ev"] == "press")
    assert (press["x"], press["y"]) == (120, 220)
    held = [(e["x"], e["y"]) for e in events if e["ev"] == "motion" and e["state"] & 0x100]
    assert all((y == 220 and 120 <= x <= 300) or (x == 300 and 220 <= y <= 350) for x, y in held), held
    assert any(y == 220 and x < 300 for x, y in held) and any(x == 300 and 220 < y for x, y in held)
    assert (events[-1]["x"], events[-1]["y"]) == (300, 350)


def test_scroll_pixels_become_wheel_clicks(desktopd, pointer_recorder):
    body = call(desktopd, {"action": {"type": "scroll", "x": 250, "y": 260, "scroll_x": 0,
                                      "scroll_y": 300}})
    assert body["executed"][0]["dy"] == 3
    assert pointer_recorder.presses(3) == [{"ev": "press", "b": 5, "x": 250, "y": 260, "state": 0}] * 3
    call(desktopd, {"action": {"type": "scroll", "x": 250, "y": 260, "scroll_x": -40, "scroll_y": 0}})
    assert [e["b"] for e in pointer_recorder.presses(1)] == [6]   # a small scroll is still one click
    call(desktopd, {"action": {"type": "scroll", "x": 250, "y": 260, "scroll_y": -100}})
    assert [e["b"] for e in pointer_recorder.presses(1)] == [4]


def test_move_then_keypress_and_type(desktopd, recorder):
    call(desktopd, {"actions": [{"type": "type", "text": "Grüße ∑"}, {"type": "keypress", "keys": ["ENTER"]},
                                {"type": "type", "text": "z"}]})
    assert recorder.text() == "Grüße ∑\nz"
    recorder.drain()
    body = call(desktopd, {"action": {"type": "keypress", "keys": ["CTRL", "A"]}})
    assert body["executed"] == [{"type": "keypress", "keys": ["ctrl", "a"]}]
    key = recorder.wait_for("key")
    while key["keysym"] != "a":
        key = recorder.wait_for("key")
    assert key["state"] & CONTROL_MASK


def test_move_wait_screenshot_and_scaling(desktopd, pointer_recorder):
    query = "?settle=0&display_width_px=640&display_height_px=400"
    body = call(desktopd, {"actions": [{"type": "move", "x": 100, "y": 75}, {"type": "wait"},
                                       {"type": "screenshot"}]}, query)
    assert body["executed"][0]["x"] == 200 and body["executed"][0]["y"] == 150
    assert screenshot_of(body["output"]).size == (640, 400)
    assert "call_id" not in body
    motion = pointer_recorder.wait_for("motion")
    assert (motion["x"], motion["y"]) == (200, 150)


@pytest.mark.parametrize("body, field", [
    ({"action": {"type": "teleport"}}, "action.type"),
    ({"action": {"x": 1}}, "action.type"),
    ({"actions": [{"type": "wait"}, {"type": "click", "x": 1}]}, "actions[1].y"),
    ({"action": {"type": "click", "x": 1, "y": 1, "button": "thumb"}}, "action.button"),
    ({"action": {"type": "keypress", "keys": []}}, "action.keys"),
    ({"action": {"type": "keypress", "keys": ["NOSUCHKEY"]}}, "action.keys[0]"),
    ({"action": {"type": "wait", "ms": 5}}, "action.ms"),
    ({"action": {"type": "move", "x": 9999, "y": 1}}, "action.x"),
    ({"action": {"type": "drag", "path": [{"x": 1}]}}, "action.path[0].y"),
    ({}, "action"),
    ({"action": {"type": "wait"}, "actions": [{"type": "wait"}]}, "action"),
])
def test_bad_input_is_a_422_naming_the_field(desktopd, body, field):
    resp = desktopd.request("POST", PATH, json=body)
    assert resp.status_code == 422, resp.text
    assert resp.json()["field"] == field
