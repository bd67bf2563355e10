"""What the pointer and keyboard handlers ask of the X layer (fake desktop records the calls)."""

from __future__ import annotations

from desktopd.input.keystrokes import parse_combos
from desktopd.input.pointer_events import interpolate


def input_calls(fake):
    return [c for c in fake.calls if c[0] in ("move", "button", "scroll", "key", "keysym", "type")]


async def test_tap_exactly_as_harnesses_send_it(client, fake_desktop):
    resp = await client.post("/api/v1/tablet", json={"x": 100, "y": 200, "action": "tap"})
    assert resp.status == 200
    assert await resp.json() == {"x": 100, "y": 200, "events": 1}
    assert input_calls(fake_desktop) == [("move", 100, 200), ("button", 1, True), ("button", 1, False)]


async def test_right_double_click_with_modifier(client, fake_desktop):
    resp = await client.post("/api/v1/tablet", json={"x": 5, "y": 6, "action": "click", "button": "right",
                                                     "clicks": 2, "modifiers": ["ctrl", "shift"]})
    assert resp.status == 200
    assert input_calls(fake_desktop) == [
        ("key", "ctrl", True), ("key", "shift", True), ("move", 5, 6),
        ("button", 3, True), ("button", 3, False), ("button", 3, True), ("button", 3, False),
        ("key", "shift", False), ("key", "ctrl", False)]


async def test_scroll_and_batch(client, fake_desktop):
    resp = await client.post("/api/v1/tablet", json={"events": [
        {"action": "move", "x": 1, "y": 2},
        {"action": "scroll", "dy": 3, "x": 10, "y": 10, "modifiers": ["ctrl"]},
        {"action": "down", "button": "middle"}, {"action": "up", "button": 2}]})
    assert resp.status == 200
    assert input_calls(fake_desktop) == [
        ("move", 1, 2), ("key", "ctrl", True), ("move", 10, 10), ("scroll", 0, 3),
        ("key", "ctrl", False), ("button", 2, True), ("button", 2, False)]


async def test_paced_drag_holds_button_along_path(client, fake_desktop):
    resp = await client.post("/api/v1/tablet", json={"action": "drag", "path": [[0, 0], [100, 0], [100, 50]],
                                                     "duration_ms": 60})
    assert resp.status == 200
    calls = input_calls(fake_desktop)
    assert calls[0] == ("move", 0, 0) and calls[1] == ("button", 1, True)
    assert calls[-1] == ("button", 1, False) and calls[-2] == ("move", 100, 50)
    moves = [c for c in calls if c[0] == "move"]
    assert len(moves) >= 4 and ("move", 100, 0) in moves  # the corner of the path is visited
    assert await resp.json() == {"x": 100, "y": 50, "events": 1}


def test_interpolate_ends_on_last_point_and_follows_segments():
    pts = interpolate([(0, 0), (10, 0), (10, 10)], 4)
    assert pts == [(5, 0), (10, 0), (10, 5), (10, 10)]
    assert interpolate([(3, 3)], 2) == [(3, 3), (3, 3)]


async def test_combo_pressed_in_order_released_in_reverse(client, fake_desktop):
    resp = await client.post("/api/v1/keyboard", json={"keys": "ctrl+shift+t Return"})
    assert resp.status == 200
    assert input_calls(fake_desktop) == [
        ("key", "ctrl", True), ("key", "shift", True), ("key", "t", True),
        ("key", "t", False), ("key", "shift", False), ("key", "ctrl", False),
        ("key", "Return", True), ("key", "Return", False)]


async def test_failed_combo_never_leaves_a_key_held(client, fake_desktop):
    fake_desktop.fail_key = "t"
    resp = await client.post("/api/v1/keyboard", json={"keys": "ctrl+shift+t"})
    assert resp.status == 500
    assert input_calls(fake_desktop) == [("key", "ctrl", True), ("key", "shift", True),
                                         ("key", "shift", False), ("key", "ctrl", False)]


async def test_hold_and_release(client, fake_desktop):
    assert (await client.post("/api/v1/keyboard", json={"keys": "ctrl+alt", "action": "down"})).status == 200
    assert (await client.post("/api/v1/keyboard", json={"keys": "ctrl+alt", "action": "up"})).status == 200
    assert input_calls(fake_desktop) == [("key", "ctrl", True), ("key", "alt", True),
                                         ("key", "alt", False), ("key", "ctrl", False)]


async def test_text_with_delay_goes_char_by_char(client, fake_desktop):
    resp = await client.post("/api/v1/keyboard", json={"text": "é✓", "delay_ms": 1})
    assert resp.status == 200
    assert input_calls(fake_desktop) == [("type", "é"), ("type", "✓")]


async def test_key_events_release_on_failure(client, fake_desktop):
    fake_desktop.fail_key = "b"
    resp = await client.post("/api/v1/keyboard", json={"events": [
        {"keysym": "a", "state": "down"}, {"keysym": 65307, "state": "down"},
        {"keysym": "b", "state": "down"}]})
    assert resp.status == 500
    assert input_calls(fake_desktop) == [("key", "a", True), ("keysym", 65307, True),
                                         ("keysym", 65307, False), ("key", "a", False)]


def test_parse_combos_handles_plus():
    assert parse_combos("ctrl++ +") == [["ctrl", "plus"], ["plus"]]
    assert parse_combos(["super", "ctrl+KP_Enter"]) == [["super"], ["ctrl", "KP_Enter"]]


async def test_compat_endpoints_204(client, fake_desktop):
    resp = await client.post("/api/v1/tablet_event",
                             json={"events": [{"type": "click", "x": 3, "y": 4, "button": "left"}]})
    assert resp.status == 204
    resp = await client.post("/api/v1/keyboard_event", json={"events": [
        {"keysym": "a", "state": "down"}, {"keysym": "a", "state": "up"}]})
    assert resp.status == 204
    assert input_calls(fake_desktop) == [("move", 3, 4), ("button", 1, True), ("button", 1, False),
                                         ("key", "a", True), ("key", "a", False)]


async def test_screenshot_scaling_headers(client):
    resp = await client.get("/api/v1/screenshot?format=jpeg&max_width=640")
    assert resp.status == 200 and resp.content_type == "image/jpeg"
    assert resp.headers["X-Scale"] == "0.5"
    assert (resp.headers["X-Image-Width"], resp.headers["X-Image-Height"]) == ("640", "400")
    assert resp.headers["X-Region"] == "0,0,1280,800"
    resp = await client.get("/api/v1/screenshot?format=raw&region=10,20,30,40")
    data = await resp.read()
    assert resp.headers["X-Raw-Format"] == "BGRX" and resp.headers["X-Raw-Stride"] == "120"
    assert len(data) == 30 * 40 * 4 and data[:4] == bytes([30, 20, 10, 0])
    resp = await client.get("/api/v1/screenshot?format=raw&scale=0.5")
    assert resp.headers["X-Raw-Width"] == "640" and len(await resp.read()) == 640 * 400 * 4
    assert resp.headers["X-Scale-Y"] == resp.headers["X-Scale"] == "0.5"


async def test_a_screenshot_of_an_exact_size_says_each_axis_factor(client):
    # 1280x800 into 640x600: x halves, y by three quarters.
    for fmt in ("png", "raw"):
        resp = await client.get(f"/api/v1/screenshot?format={fmt}&width=640&height=600")
        body = await resp.read()
        assert resp.status == 200, body
        assert (resp.headers["X-Image-Width"], resp.headers["X-Image-Height"]) == ("640", "600")
        assert (resp.headers["X-Scale"], resp.headers["X-Scale-Y"]) == ("0.5", "0.75")
    assert len(body) == 640 * 600 * 4
    step = await client.post("/api/v1/step", json={"screenshot": {"format": "jpeg", "width": 640, "height": 600},
                                                   "settle": 0})
    shot = (await step.json())["screenshot"]
    assert (shot["width"], shot["height"], shot["scale"], shot["scale_y"]) == (640, 600, 0.5, 0.75)


async def test_an_exact_size_needs_both_sides_and_no_other_scaling(client):
    for query, field in (("width=640", "height"), ("height=600", "width"),
                         ("width=640&height=600&scale=0.5", "width"),
                         ("width=640&height=600&max_width=100", "width"), ("width=0&height=5", "width")):
        resp = await client.get(f"/api/v1/screenshot?{query}")
        assert resp.status == 422, query
        assert (await resp.json())["field"] == field, query


async def test_a_slow_drag_does_not_block_other_requests(client, fake_desktop):
    import asyncio
    drag = asyncio.ensure_future(client.post("/api/v1/tablet", json={
        "action": "drag", "path": [[0, 0], [500, 0]], "duration_ms": 3000}))
    for _ in range(1000):  # until the drag has started (bounded)
        if ("button", 1, True) in fake_desktop.calls:
            break
        await asyncio.sleep(0.01)
    resp = await client.post("/api/v1/keyboard", json={"keys": "Return"})
    assert resp.status == 200
    assert not drag.done()  # the key went through while the drag was still going
    assert ("key", "Return", True) in fake_desktop.calls
    assert (await drag).status == 200
    calls = input_calls(fake_desktop)
    assert calls.index(("key", "Return", True)) < calls.index(("button", 1, False))


async def test_execute_does_not_block_the_x_thread(client, fake_desktop):
    import asyncio
    slow = asyncio.ensure_future(client.post("/api/v1/execute", json={"command": "sleep 3"}))
    await asyncio.sleep(0.2)
    resp = await client.post("/api/v1/tablet", json={"x": 9, "y": 9, "action": "tap"})
    assert resp.status == 200 and not slow.done()
    assert (await (await slow).json())["exit_code"] == 0


async def test_fractional_coordinates_are_rounded(client, fake_desktop):
    resp = await client.post("/api/v1/tablet", json={"x": 100.4, "y": 199.6, "action": "tap"})
    assert await resp.json() == {"x": 100, "y": 200, "events": 1}
    resp = await client.post("/api/v1/tablet", json={"x": 1279.7, "y": 1, "action": "tap"})
    assert resp.status == 422 and (await resp.json())["field"] == "x"  # rounds to 1280: off screen


async def test_long_text_goes_in_chunks_in_order(client, fake_desktop):
    text = "".join(chr(0x4E00 + i % 500) for i in range(1000))
    resp = await client.post("/api/v1/keyboard", json={"text": text})
    assert resp.status == 200
    typed = [c[1] for c in input_calls(fake_desktop)]
    assert "".join(typed) == text and len(typed) > 1
