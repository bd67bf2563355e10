"""Every kind of bad input gets its 4xx JSON error naming the field (fake desktop, no X)."""

from __future__ import annotations

import pytest


async def expect_error(resp, status: int, field: str | None = None) -> dict:
    body = await resp.json()
    assert resp.status == status, body
    assert set(body) >= {"error", "detail"}
    if field is not None:
        assert body["field"] == field, body
        assert field in body["detail"]
    return body


@pytest.mark.parametrize("body, field", [
    ({"x": 5000, "y": 1, "action": "tap"}, "x"),
    ({"x": 1, "y": -1, "action": "tap"}, "y"),
    ({"x": 1, "action": "tap"}, "y"),
    ({"action": "tap"}, "x"),
    ({"x": "1", "y": 2}, "x"),
    ({"x": True, "y": 2}, "x"),
    ({"x": 1, "y": 2, "action": "poke"}, "action"),
    ({"x": 1, "y": 2, "action": "click", "button": "fourth"}, "button"),
    ({"x": 1, "y": 2, "action": "click", "clicks": 4}, "clicks"),
    ({"x": 1, "y": 2, "colour": "red"}, "colour"),
    ({"action": "scroll"}, "dy"),
    ({"action": "scroll", "dy": 500}, "dy"),
    ({"action": "move", "x": 1, "y": 1, "dx": 1}, "dx"),
    ({"action": "drag", "path": [[1, 1], [2000, 1]]}, "path[1]"),
    ({"action": "drag", "path": [[1, 1], [2, 2, 3]]}, "path[1]"),
    ({"action": "drag", "path": [[1, 1], [2, 2]], "duration_ms": -1}, "duration_ms"),
    ({"action": "drag"}, "path"),
    ({"x": 1, "y": 1, "action": "click", "modifiers": ["hyperdrive"]}, "modifiers[0]"),
    ({"events": [{"x": 1, "y": 1}, {"x": 1, "y": 1}, {"x": 1281, "y": 1}]}, "events[2].x"),
    ({"events": [{"x": 1, "y": 1, "action": "nope"}]}, "events[0].action"),
    ({"events": []}, "events"),
    ({"events": [{"x": 1, "y": 1, "modifiers": ["ctrl", "nokey"]}]}, "events[0].modifiers[1]"),
])
async def test_tablet_invalid_fields(client, fake_desktop, body, field):
    resp = await client.post("/api/v1/tablet", json=body)
    await expect_error(resp, 422, field)
    assert not [c for c in fake_desktop.calls if c[0] in ("move", "button", "scroll")]


@pytest.mark.parametrize("path", ["/api/v1/tablet", "/api/v1/keyboard", "/api/v1/execute",
                                  "/api/v1/tablet_event", "/api/v1/keyboard_event"])
@pytest.mark.parametrize("raw", [b"{bad json", b"", b"[1, 2]", b"\xff\xfe"])
async def test_malformed_json_is_400(client, path, raw):
    resp = await client.post(path, data=raw, headers={"Content-Type": "application/json"})
    await expect_error(resp, 400)


@pytest.mark.parametrize("body, field", [
    ({}, "text"),
    ({"text": "a", "keys": "ctrl+a"}, "keys"),
    ({"text": 5}, "text"),
    ({"keys": "ctrl+nokey"}, "keys"),
    ({"keys": ["ctrl+a", "ctrl+"]}, "keys[1]"),
    ({"keys": ["ctrl+a", "wat"]}, "keys[1]"),
    ({"keys": "a", "action": "hold"}, "action"),
    ({"text": "a", "action": "down"}, "action"),
    ({"text": "a", "delay_ms": -1}, "delay_ms"),
    ({"events": [{"keysym": "a", "state": "down"}, {"keysym": "a", "state": "sideways"}]}, "events[1].state"),
    ({"events": [{"keysym": "nokey", "state": "down"}]}, "events[0].keysym"),
    ({"events": [{"state": "down"}]}, "events[0].keysym"),
])
async def test_keyboard_invalid_fields(client, fake_desktop, body, field):
    resp = await client.post("/api/v1/keyboard", json=body)
    await expect_error(resp, 422, field)
    assert not [c for c in fake_desktop.calls if c[0] in ("key", "type", "keysym")]


@pytest.mark.parametrize("query, field", [
    ("format=gif", "format"),
    ("format=jpeg&quality=0", "quality"),
    ("format=png&quality=50", "quality"),
    ("scale=0", "scale"),
    ("scale=1.5", "scale"),
    ("scale=abc", "scale"),
    ("scale=0.5&max_width=100", "scale"),
    ("max_width=0", "max_width"),
    ("region=1,2,3", "region"),
    ("region=0,0,0,10", "region"),
    ("region=1200,0,100,10", "region"),
    ("cursor=maybe", "cursor"),
    ("bogus=1", "bogus"),
    ("format=png&format=jpeg", "format"),
])
async def test_screenshot_invalid_query(client, query, field):
    resp = await client.get(f"/api/v1/screenshot?{query}")
    await expect_error(resp, 422, field)


@pytest.mark.parametrize("body, field", [
    ({}, "command"),
    ({"command": []}, "command"),
    ({"command": ""}, "command"),
    ({"command": ["ls", 3]}, "command[1]"),
    ({"command": "true", "timeout": 0}, "timeout"),
    ({"command": "true", "timeout": 601}, "timeout"),
    ({"command": "true", "max_output": -1}, "max_output"),
    ({"command": "true", "env": {"A": 1}}, "env.A"),
    ({"command": "true", "cwd": "/definitely/not/here"}, "cwd"),
    ({"command": ["/definitely/not/a/program"]}, "command"),
    ({"command": ["ls"], "shell": True}, "shell"),
    ({"command": "unbalanced 'quote", "shell": False}, "command"),
    ({"command": "true", "detach": True, "stdin": "x"}, "stdin"),
    ({"command": ["echo", "a\u0000b"]}, "command[1]"),
    ({"command": "true", "env": {"A=B": "x"}}, "env.A=B"),
    ({"command": "true", "env": {"A": "x\u0000"}}, "env.A"),
])
async def test_execute_invalid_fields(client, body, field):
    resp = await client.post("/api/v1/execute", json=body)
    await expect_error(resp, 422, field)


async def test_unknown_window_is_404_and_bad_id_422(client):
    await expect_error(await client.get("/api/v1/windows/0x123"), 404)
    await expect_error(await client.get("/api/v1/windows/zz"), 422, "id")
    assert (await (await client.get("/api/v1/windows/0x400001")).json())["id"] == 0x400001
    await expect_error(await client.post("/api/v1/windows/0x123/focus"), 404)
    await expect_error(await client.post("/api/v1/windows/notanid/close"), 422, "id")
    await expect_error(await client.post("/api/v1/windows/0x400001/move", json={"x": 1}), 422, "y")
    await expect_error(await client.post("/api/v1/windows/0x400001/resize",
                                         json={"width": 0, "height": 5}), 422, "width")


async def test_window_action_reaches_desktop(client, fake_desktop):
    resp = await client.post("/api/v1/windows/0x400001/move", json={"x": 10, "y": 20})
    assert resp.status == 200, await resp.text()
    assert ("window", 0x400001, "move", {"x": 10, "y": 20}) in fake_desktop.calls
    resp = await client.post("/api/v1/windows/4194305/close")
    assert resp.status == 200
    assert ("window", 0x400001, "close", {}) in fake_desktop.calls


async def test_clipboard_validation(client):
    await expect_error(await client.put("/api/v1/clipboard", json={"text": 3}), 422, "text")
    await expect_error(await client.put("/api/v1/clipboard", json={}), 422, "text")
    await expect_error(await client.put("/api/v1/clipboard", data=b"\xff",
                                        headers={"Content-Type": "text/plain"}), 422, "body")


@pytest.mark.parametrize("path, body, field", [
    ("/api/v1/tablet_event", {"events": [{"type": "click", "x": 1}]}, "events[0].y"),
    ("/api/v1/tablet_event", {"events": [{"type": "fly", "x": 1, "y": 1}]}, "events[0].type"),
    ("/api/v1/tablet_event", {"events": [{"type": "click", "x": 9999, "y": 1}]}, "events[0].x"),
    ("/api/v1/keyboard_event", {"events": [{"keysym": "a"}]}, "events[0].state"),
    ("/api/v1/keyboard_event", {}, "events"),
])
async def test_compat_invalid(client, path, body, field):
    await expect_error(await client.post(path, json=body), 422, field)


async def test_unknown_route_and_method_are_json(client):
    await expect_error(await client.get("/api/v1/nope"), 404)
    resp = await client.delete("/api/v1/tablet")
    await expect_error(resp, 405)


async def test_display_down_is_503_then_recovers(client, fake_desktop):
    fake_desktop.down = True
    resp = await client.post("/api/v1/tablet", json={"x": 1, "y": 1})
    await expect_error(resp, 503)
    resp = await client.get("/health")
    body = await resp.json()
    assert resp.status == 503 and body["x_connected"] is False and body["status"] == "degraded"
    fake_desktop.down = False
    resp = await client.get("/health")
    assert resp.status == 200 and (await resp.json())["x_connected"] is True
    resp = await client.post("/api/v1/tablet", json={"x": 1, "y": 1})
    assert resp.status == 200
