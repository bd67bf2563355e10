"""The clients against a real desktopd on a real Xvfb: every kind of call, and errors that carry
the API's JSON."""

from __future__ import annotations

import io
import time

import pytest
from PIL import Image

from desktopd_kit import AsyncDesktop, Desktop, DesktopError
from testbed.desktopd import start_desktopd

pytestmark = pytest.mark.x11


def test_health_and_wait_until_healthy(desktop, xvfb):
    health = desktop.wait_until_healthy(timeout=20)
    assert health["status"] == "ok"
    assert health["screen"]["width"] == xvfb.width


@pytest.mark.parametrize("fmt", ["png", "jpeg", "webp", "raw"])
def test_screenshot_formats_decode_to_the_screen_size(desktop, xvfb, fmt):
    shot = desktop.screenshot(fmt)
    assert shot.screen_size == (xvfb.width, xvfb.height)
    assert shot.image().size == (xvfb.width, xvfb.height)
    assert shot.array().shape == (xvfb.height, xvfb.width, 3)
    assert Image.open(io.BytesIO(shot.png())).format == "PNG"


def test_screenshot_region_and_scale_map_back_to_the_screen(desktop):
    shot = desktop.screenshot("jpeg", quality=50, scale=0.5, region=(100, 40, 400, 200))
    assert (shot.width, shot.height) == (200, 100)
    assert shot.region == (100, 40, 400, 200)
    assert shot.to_screen(10, 20) == (120, 80)


def test_pointer_calls_return_where_the_pointer_is(desktop):
    assert desktop.move(30, 40)["x"] == 30
    assert desktop.tap(50, 60) == {"x": 50, "y": 60, "events": 1}
    assert desktop.click(70, 80, button="right")["y"] == 80
    assert desktop.double_click(90, 100)["x"] == 90
    assert desktop.scroll(100, 110, dy=2)["y"] == 110
    assert desktop.drag([[10, 10], [40, 40]], duration_ms=0)["x"] == 40
    assert desktop.mouse_down(5, 5)["x"] == 5 and desktop.mouse_up()["x"] == 5
    assert desktop.pointer(events=[{"action": "move", "x": 1, "y": 2},
                                   {"action": "move", "x": 3, "y": 4}]) == {"x": 3, "y": 4, "events": 2}


def test_clipboard_round_trip_and_execute(desktop):
    desktop.set_clipboard("héllo ✓ kit")
    assert desktop.clipboard() == "héllo ✓ kit"
    result = desktop.execute(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=10)
    assert (result["exit_code"], result["stdout"], result["stderr"]) == (3, "out\n", "err\n")


def test_windows_listing_and_actions(desktop, xvfb):
    started = desktop.execute(["xterm", "-title", "kit-client-test", "-geometry", "40x10+50+50"],
                              detach=True)
    try:
        window = None
        for _ in range(200):   # bounded: xterm maps its window within a moment
            window = next((w for w in desktop.windows() if w["title"] == "kit-client-test"), None)
            if window:
                break
            time.sleep(0.05)
        assert window is not None, desktop.tree()
        assert desktop.window(window["id"])["title"] == "kit-client-test"
        resized = desktop.resize_window(window["id"], 300, 200)["window"]
        assert (resized["client"]["width"], resized["client"]["height"]) == (300, 200)
        desktop.move_window(window["id"], 400, 300)
        moved = desktop.window(window["id"])["frame"]
        # Without a window manager, xterm's 1-pixel X border lies outside the position moved to.
        assert 400 <= moved["x"] <= 401 and 300 <= moved["y"] <= 301
        desktop.keys("ctrl+a")     # keyboard calls answer ok
        assert desktop.type_text("echo hi")["ok"] is True
    finally:
        desktop.execute(["kill", str(started["pid"])])


def test_an_invalid_field_is_a_desktop_error_naming_it(desktop, xvfb):
    with pytest.raises(DesktopError) as caught:
        desktop.tap(xvfb.width + 10, 5)
    error = caught.value
    assert (error.status, error.code, error.field) == (422, "invalid_field", "x")
    assert error.body["field"] == "x" and "x" in error.message


def test_an_unknown_window_is_a_404_with_the_json_body(desktop):
    with pytest.raises(DesktopError) as caught:
        desktop.window(0x7fffffff)
    assert caught.value.status == 404 and caught.value.code == "not_found"
    assert caught.value.body["error"] == "not_found"


def test_the_token_is_sent_and_a_missing_one_is_a_401(xvfb):
    server = start_desktopd(xvfb.display, env={"DESKTOPD_TOKEN": "kit-secret"})
    try:
        with Desktop(server.url) as anonymous:
            with pytest.raises(DesktopError) as caught:
                anonymous.windows()
            assert (caught.value.status, caught.value.code) == (401, "unauthorized")
        with Desktop(server.url, token="kit-secret") as client:
            assert isinstance(client.windows(), list)
    finally:
        server.stop()


def test_no_sidecar_configured_is_a_desktop_error(desktop):
    with pytest.raises(DesktopError) as caught:
        desktop.tabs()
    assert caught.value.code == "no_sidecar"


async def test_async_client_makes_the_same_calls(desktopd, xvfb):
    async with AsyncDesktop(desktopd.url) as client:
        assert (await client.wait_until_healthy(timeout=20))["status"] == "ok"
        shot = await client.screenshot("jpeg", max_width=320)
        assert shot.width == 320 and shot.image().size[0] == 320
        assert (await client.tap(11, 12))["x"] == 11
        await client.set_clipboard("async ✓")
        assert await client.clipboard() == "async ✓"
        with pytest.raises(DesktopError) as caught:
            await client.move(-5, 3)
        assert caught.value.field == "x"
