"""POST /api/v1/computer/anthropic on a real Xvfb: what each action delivers to real X clients."""

from __future__ import annotations

import pytest
from PIL import Image

from .exchange import CONTROL_MASK, SHIFT_MASK, png, post_action

pytestmark = pytest.mark.x11

PATH = "/api/v1/computer/anthropic"


def act(desktopd, body, query="?screenshot=false", status=200):
    return post_action(desktopd, PATH, body, query, status)


def image_of(block) -> Image.Image:
    assert block["type"] == "image" and block["source"]["media_type"] == "image/png"
    return png(block["source"]["data"])


def test_clicks_carry_button_count_and_modifiers(desktopd, pointer_recorder):
    act(desktopd, {"action": "left_click", "coordinate": [150, 150], "text": "ctrl"})
    assert pointer_recorder.presses(1) == [{"ev": "press", "b": 1, "x": 150, "y": 150, "state": CONTROL_MASK}]
    act(desktopd, {"action": "right_click", "coordinate": [160, 170]})
    assert pointer_recorder.presses(1) == [{"ev": "press", "b": 3, "x": 160, "y": 170, "state": 0}]
    act(desktopd, {"action": "middle_click", "key": "shift"})   # the reference's field, no move
    assert pointer_recorder.presses(1) == [{"ev": "press", "b": 2, "x": 160, "y": 170, "state": SHIFT_MASK}]
    act(desktopd, {"action": "double_click", "coordinate": [200, 210]})
    assert [(e["b"], e["x"], e["y"]) for e in pointer_recorder.presses(2)] == [(1, 200, 210)] * 2
    act(desktopd, {"action": "triple_click", "coordinate": [210, 220]})
    assert [(e["b"], e["x"], e["y"]) for e in pointer_recorder.presses(3)] == [(1, 210, 220)] * 3
    pointer_recorder.drain()
    act(desktopd, {"action": "left_click"})
    # no extra presses: the triple click was exactly three
    assert pointer_recorder.presses(1)[0]["b"] == 1


def test_drag_down_up_and_move(desktopd, pointer_recorder):
    body = act(desktopd, {"action": "left_click_drag", "start_coordinate": [120, 130],
                          "coordinate": [300, 250]})
    assert (body["executed"]["x"], body["executed"]["y"]) == (300, 250)
    events = pointer_recorder.collect("release", 1)
    press = next(e for e in events if e["ev"] == "press")
    assert (press["x"], press["y"]) == (120, 130)
    motions = [(e["x"], e["y"]) for e in events if e["ev"] == "motion" and e["state"] & 0x100]
    assert motions and motions[-1] == (300, 250)   # moved with button 1 held (Button1Mask)
    assert events[-1]["x"] == 300 and events[-1]["y"] == 250
    act(desktopd, {"action": "mouse_move", "coordinate": [140, 140]})
    act(desktopd, {"action": "left_mouse_down"})
    act(desktopd, {"action": "left_mouse_up", "coordinate": [180, 190]})
    events = pointer_recorder.collect("release", 1)
    assert [(e["ev"], e["x"], e["y"]) for e in events if e["ev"] != "motion"] == \
        [("press", 140, 140), ("release", 180, 190)]


@pytest.mark.parametrize("direction, button", [("up", 4), ("down", 5), ("left", 6), ("right", 7)])
def test_scroll_direction_amount_and_modifier(desktopd, pointer_recorder, direction, button):
    act(desktopd, {"action": "scroll", "coordinate": [250, 260], "scroll_direction": direction,
                   "scroll_amount": 3, "text": "ctrl"})
    presses = pointer_recorder.presses(3)
    assert presses == [{"ev": "press", "b": button, "x": 250, "y": 260, "state": CONTROL_MASK}] * 3
    pointer_recorder.drain()
    act(desktopd, {"action": "left_click"})
    assert pointer_recorder.presses(1)[0]["b"] == 1   # nothing more than three wheel clicks came


def test_keys_and_unicode_text_arrive(desktopd, recorder):
    act(desktopd, {"action": "type", "text": "héllo wörld ✓ 日本"})
    assert recorder.text() == "héllo wörld ✓ 日本"
    recorder.drain()
    act(desktopd, {"action": "key", "text": "ctrl+a"})
    key = recorder.wait_for("key")
    while key["keysym"] != "a":
        key = recorder.wait_for("key")
    assert key["state"] & CONTROL_MASK
    act(desktopd, {"action": "key", "text": "End Return"})
    act(desktopd, {"action": "type", "text": "x"})
    assert recorder.text() == "héllo wörld ✓ 日本\nx"


def test_hold_key_holds_for_the_duration(desktopd, recorder):
    recorder.drain()
    body = act(desktopd, {"action": "hold_key", "text": "shift", "duration": 0.3})
    assert body["executed"] == {"keys": ["shift"], "seconds": 0.3}
    assert recorder.wait_for("key")["keysym"] == "Shift_L"
    act(desktopd, {"action": "type", "text": "a"})
    assert recorder.text().endswith("a")   # shift was released again: a lower-case a


def test_scaled_display_maps_coordinates_and_screenshots(desktopd, pointer_recorder):
    query = "?display_width_px=640&display_height_px=400"
    body = act(desktopd, {"action": "left_click", "coordinate": [100, 75]}, query)
    assert body["display"] == {"width": 640, "height": 400}
    assert pointer_recorder.presses(1)[0] | {"state": 0} == {"ev": "press", "b": 1, "x": 200, "y": 150, "state": 0}
    assert image_of(body["content"][-1]).size == (640, 400)
    shot = act(desktopd, {"action": "screenshot"}, query + "&screenshot=false")
    assert image_of(shot["content"][0]).size == (640, 400)
    position = act(desktopd, {"action": "cursor_position"}, query)
    assert position["content"] == [{"type": "text", "text": "X=100,Y=75"}]
    act(desktopd, {"action": "left_click", "coordinate": [640, 10]}, query, status=422)


def test_zoom_returns_the_region_and_screenshots_come_by_default(desktopd, pointer_recorder):
    # the recorder's white window at 100..499 x 100..399 on the black root
    body = act(desktopd, {"action": "zoom", "region": [100, 100, 200, 150]}, "")
    zoomed = image_of(body["content"][0]).convert("RGB")
    assert zoomed.size == (100, 50) and zoomed.getpixel((50, 25)) == (255, 255, 255)
    body = act(desktopd, {"action": "mouse_move", "coordinate": [10, 10]}, "")
    full = image_of(body["content"][0]).convert("RGB")
    assert full.size == (1280, 800) and full.getpixel((300, 200)) == (255, 255, 255)
    waited = act(desktopd, {"action": "wait", "duration": 0.1}, "")
    assert [b["type"] for b in waited["content"]] == ["image"]


@pytest.mark.parametrize("body, field", [
    ({"action": "fly"}, "action"),
    ({"text": "a"}, "action"),
    ({"action": "key"}, "text"),
    ({"action": "left_click", "coordinate": [1, 2, 3]}, "coordinate"),
    ({"action": "left_click", "coordinates": [1, 2]}, "coordinates"),
    ({"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1}, "scroll_direction"),
    ({"action": "scroll", "scroll_direction": "up", "scroll_amount": -1}, "scroll_amount"),
    ({"action": "wait", "duration": 1000}, "duration"),
    ({"action": "key", "text": "ctrl+nosuchkey"}, "text"),
    ({"action": "left_click", "coordinate": [5000, 5]}, "coordinate"),
    ({"action": "zoom", "region": [10, 10, 5, 5]}, "region"),
])
def test_bad_input_is_a_422_naming_the_field(desktopd, body, field):
    resp = desktopd.request("POST", PATH, json=body)
    assert resp.status_code == 422, resp.text
    assert resp.json()["field"] == field


def test_tool_definition_has_the_display_size(desktopd):
    assert desktopd.request("GET", PATH).json() == {
        "type": "computer_20250124", "name": "computer", "display_width_px": 1280,
        "display_height_px": 800}
    tool = desktopd.request("GET", PATH + "?version=computer_20251124&display_width_px=1024"
                                          "&display_height_px=640").json()
    assert tool == {"type": "computer_20251124", "name": "computer", "display_width_px": 1024,
                    "display_height_px": 640, "enable_zoom": True}
    assert desktopd.request("GET", PATH + "?display_width_px=1024").status_code == 422
