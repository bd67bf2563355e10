"""desktopd over real HTTP, as a real process, with real clients (no fakes), on each backend:
a real Xvfb with Tk clients, and a real headless Sway with a Wayland client (conftest.py's
``live``). The same requests, the same answers; tests named for one backend use that one's
display server directly."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import time

import pytest
from PIL import Image

from testbed.capability import have_program, require
from testbed.desktopd import start_desktopd
from testbed.sway import launch_sway, running_sway, stop_sway

from .conftest import LiveDesktop

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)


def close_to(pixel, colour, tolerance=24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def post(desktopd, path, body, status=200):
    resp = desktopd.request("POST", path, json=body)
    assert resp.status_code == status, resp.text
    return resp.json() if resp.content else None


def test_health_reports_the_display(desktopd, live: LiveDesktop):
    body = desktopd.request("GET", "/health").json()
    assert body["status"] == "ok" and body["x_connected"] is True
    assert body["display"] == live.display
    assert body["screen"] == {"width": 1280, "height": 800}


def test_tap_and_clicks_land_exactly(desktopd, recorder):
    assert post(desktopd, "/api/v1/tablet", {"x": 150, "y": 250, "action": "tap"}) == \
        {"x": 150, "y": 250, "events": 1}
    events = recorder.collect("release", 1)
    assert {"ev": "press", "b": 1, "x": 150, "y": 250} in events
    assert events[-1] == {"ev": "release", "b": 1, "x": 150, "y": 250}
    post(desktopd, "/api/v1/tablet", {"x": 321, "y": 287, "action": "click", "button": "right"})
    assert recorder.collect("release", 3)[-2:] == [{"ev": "press", "b": 3, "x": 321, "y": 287},
                                                   {"ev": "release", "b": 3, "x": 321, "y": 287}]
    post(desktopd, "/api/v1/tablet", {"x": 200, "y": 300, "action": "double_click"})
    presses = [e for e in recorder.collect("release", 1) + recorder.collect("release", 1)
               if e["ev"] == "press"]
    assert presses == [{"ev": "press", "b": 1, "x": 200, "y": 300}] * 2


def test_drag_follows_the_path(desktopd, recorder):
    body = post(desktopd, "/api/v1/tablet", {"action": "drag", "path": [[120, 220], [300, 220], [300, 350]],
                                             "duration_ms": 300})
    assert (body["x"], body["y"]) == (300, 350)
    events = recorder.collect("release", 1)
    press = next(e for e in events if e["ev"] == "press")
    assert (press["b"], press["x"], press["y"]) == (1, 120, 220)
    drags = [(e["x"], e["y"]) for e in events if e["ev"] == "drag"]
    # Every motion lies on the path (Tk may merge queued motions, so not every step is seen),
    # both segments are travelled with the button held, and it ends on the last point.
    assert all((y == 220 and 120 <= x <= 300) or (x == 300 and 220 <= y <= 350) for x, y in drags), drags
    assert any(y == 220 and x < 300 for x, y in drags) and any(x == 300 and y > 220 for x, y in drags)
    assert drags[-1] == (300, 350)
    assert events[-1] == {"ev": "release", "b": 1, "x": 300, "y": 350}


def test_scroll_clicks_and_direction(desktopd, recorder):
    post(desktopd, "/api/v1/tablet", {"action": "scroll", "x": 200, "y": 260, "dy": 2})
    downs = [e for e in recorder.collect("release", 5) + recorder.collect("release", 5) if e["ev"] == "press"]
    assert downs == [{"ev": "press", "b": 5, "x": 200, "y": 260}] * 2
    post(desktopd, "/api/v1/tablet", {"action": "scroll", "dy": -1})
    assert recorder.collect("release", 4)[-2:] == [{"ev": "press", "b": 4, "x": 200, "y": 260},
                                                   {"ev": "release", "b": 4, "x": 200, "y": 260}]
    # (Horizontal wheel buttons 6/7: Tk 8.6 reports them as 4/5, so dx is covered by unit tests.)


def test_unicode_text_arrives_exactly(desktopd, recorder):
    post(desktopd, "/api/v1/tablet", {"x": 200, "y": 250, "action": "tap"})
    recorder.collect("release", 1)
    text = "Héllo wörld ✓ 日本語 ñ ß €"
    assert post(desktopd, "/api/v1/keyboard", {"text": text})["typed"] == len(text)
    assert recorder.text() == text


def test_key_combo_and_key_events(desktopd, recorder):
    post(desktopd, "/api/v1/tablet", {"x": 200, "y": 250, "action": "tap"})
    recorder.collect("release", 1)
    recorder.drain()
    post(desktopd, "/api/v1/keyboard", {"keys": "shift+a"})
    shift, letter = recorder.wait_for("key"), recorder.wait_for("key")
    # Like a real keyboard and xdotool: the "a" key pressed with Shift held yields "A".
    assert shift["keysym"].startswith("Shift") and letter["keysym"] == "A"
    assert letter["state"] & 1  # Shift was held when the letter went down
    assert post(desktopd, "/api/v1/keyboard_event", {"events": [{"keysym": "x", "state": "down"},
                                                               {"keysym": "x", "state": "up"}]},
                status=204) is None
    assert recorder.wait_for("key")["keysym"] == "x"
    assert recorder.text().endswith("Ax")


def test_compat_tablet_event(desktopd, recorder):
    post(desktopd, "/api/v1/tablet_event",
         {"events": [{"type": "click", "x": 140, "y": 240, "button": "left"}]}, status=204)
    assert recorder.collect("release", 1)[-1] == {"ev": "release", "b": 1, "x": 140, "y": 240}


def decode(resp) -> Image.Image:
    assert resp.status_code == 200, resp.text
    return Image.open(io.BytesIO(resp.content)).convert("RGB")


@pytest.mark.parametrize("fmt, exact", [("png", True), ("jpeg", False), ("webp", False)])
def test_screenshot_formats_show_known_pixels(desktopd, recorder, fmt, exact):
    resp = desktopd.request("GET", f"/api/v1/screenshot?format={fmt}")
    assert resp.headers["Content-Type"] == f"image/{fmt}"
    image = decode(resp)
    assert image.size == (1280, 800)
    check = (lambda p, c: p == c) if exact else close_to
    assert check(image.getpixel((130, 120)), RED)     # red frame at window +0+0, 100x50
    assert check(image.getpixel((300, 160)), BLUE)    # window background
    assert check(image.getpixel((450, 350)), GREEN)   # the Text widget


def test_screenshot_scale_region_and_raw(desktopd, recorder):
    resp = desktopd.request("GET", "/api/v1/screenshot?max_width=640")
    image = decode(resp)
    assert image.size == (640, 400) and resp.headers["X-Scale"] == "0.5"
    assert (resp.headers["X-Screen-Width"], resp.headers["X-Screen-Height"]) == ("1280", "800")
    assert image.getpixel((65, 60)) == RED or close_to(image.getpixel((65, 60)), RED)
    resp = desktopd.request("GET", "/api/v1/screenshot?region=100,100,200,100")
    image = decode(resp)
    assert image.size == (200, 100) and resp.headers["X-Region"] == "100,100,200,100"
    assert image.getpixel((0, 0)) == RED and image.getpixel((150, 75)) == BLUE
    resp = desktopd.request("GET", "/api/v1/screenshot?format=raw&region=100,100,200,100")
    assert resp.headers["X-Raw-Format"] == "BGRX" and int(resp.headers["X-Raw-Stride"]) == 800
    assert len(resp.content) == 800 * 100
    assert resp.content[:3] == bytes([0, 0, 255])                  # B, G, R of red
    offset = 75 * 800 + 150 * 4
    assert resp.content[offset:offset + 3] == bytes([255, 0, 0])   # blue
    resp = desktopd.request("GET", "/api/v1/screenshot?cursor=true&format=jpeg")
    assert decode(resp).size == (1280, 800)


def test_tree_focus_move_and_close(desktopd, recorder):
    windows = desktopd.request("GET", "/api/v1/tree").json()["windows"]
    mine = next(w for w in windows if w["title"] == "recorder")
    assert mine["client"] == {"x": 100, "y": 100, "width": 400, "height": 300, "space": "screen"}
    wid = mine["id"]
    assert desktopd.request("GET", f"/api/v1/windows/{wid:#x}").json()["client"] == mine["client"]
    assert post(desktopd, f"/api/v1/windows/{wid}/focus", {})["ok"] is True
    post(desktopd, f"/api/v1/windows/{wid:#x}/move", {"x": 150, "y": 120})
    moved = next(w for w in desktopd.request("GET", "/api/v1/tree").json()["windows"] if w["id"] == wid)
    assert (moved["frame"]["x"], moved["frame"]["y"]) == (150, 120)
    post(desktopd, f"/api/v1/windows/{wid}/close", {})
    assert recorder.process.wait(timeout=15) == 0
    resp = desktopd.request("POST", f"/api/v1/windows/{wid}/focus", json={})
    assert resp.status_code == 404 and resp.json()["error"] == "not_found"


def test_clipboard_round_trip(desktopd):
    text = "clip ✓ 日本 " + "x" * 1000
    assert desktopd.request("PUT", "/api/v1/clipboard", json={"text": text}).status_code == 200
    assert desktopd.request("GET", "/api/v1/clipboard").json()["text"] == text


# A program the desktop session runs finds its display server: X's, or Sway's Wayland socket.
SESSION_PROBES = {"x11": ("echo $DISPLAY; xdpyinfo >/dev/null && echo ok", "DISPLAY"),
                  "sway": ('echo $WAYLAND_DISPLAY; test -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" && echo ok',
                           "WAYLAND_DISPLAY")}


def test_execute_runs_in_the_desktop_session(desktopd, live: LiveDesktop, tmp_path):
    probe, variable = SESSION_PROBES[live.backend]
    out = post(desktopd, "/api/v1/execute", {"command": ["sh", "-c", probe], "cwd": str(tmp_path)})
    assert out["stdout"] == f"{live.display}\nok\n" and out["exit_code"] == 0, out
    marker = tmp_path / "display"
    out = post(desktopd, "/api/v1/execute", {"command": f"echo ${variable} > {marker}; exec sleep 60",
                                             "detach": True})
    pid = out["pid"]
    try:
        assert os.path.exists(f"/proc/{pid}") and os.getsid(pid) == pid
    finally:
        os.kill(pid, signal.SIGKILL)


def _free_high_display() -> int:
    """A display number far above the ones other suites take (they pick the lowest free one)."""
    for number in range(600 + os.getpid() % 200, 1000):
        if not os.path.exists(f"/tmp/.X{number}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{number}"):
            return number
    raise RuntimeError("no free display number")


def _start_xvfb_on(number: int) -> subprocess.Popen:
    """Xvfb on a given display number, returned once a client can connect.

    Given a number, Xvfb writes -displayfd before it accepts clients, so readiness is checked
    by connecting (bounded)."""
    require(have_program("xdpyinfo"), "xdpyinfo (Debian package x11-utils)")
    proc = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "640x480x24", "-nolisten", "tcp",
                             "-noreset", "+extension", "XTEST"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        # (a probe in a subprocess: python-xlib leaks its sockets when a connect fails)
        probe = subprocess.run(["xdpyinfo", "-display", f":{number}"], capture_output=True, timeout=10)
        if probe.returncode == 0:
            return proc
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait(timeout=10)
            raise RuntimeError(f"Xvfb :{number} did not come up")
        time.sleep(0.05)


@pytest.mark.x11
def test_503_while_display_is_gone_then_recovery():
    require(have_program("Xvfb"), "Xvfb")
    number = _free_high_display()
    first = _start_xvfb_on(number)
    server = start_desktopd(f":{number}")
    second = None
    try:
        assert server.request("GET", "/health").status_code == 200
        first.terminate()
        first.wait(timeout=10)
        resp = server.request("GET", "/api/v1/screenshot")
        assert resp.status_code == 503 and resp.json()["error"] == "unavailable"
        health = server.request("GET", "/health")
        assert health.status_code == 503 and health.json()["x_connected"] is False
        assert server.request("POST", "/api/v1/tablet", json={"x": 1, "y": 1}).status_code == 503
        second = _start_xvfb_on(number)
        health = server.request("GET", "/health")  # the first request after the return reconnects
        assert health.status_code == 200 and health.json()["x_connected"] is True, health.text
        assert decode(server.request("GET", "/api/v1/screenshot")).size == (640, 480)
        assert server.request("POST", "/api/v1/tablet", json={"x": 5, "y": 5}).json()["x"] == 5
    finally:
        server.stop()
        for xvfb in (first, second):
            if xvfb is not None and xvfb.poll() is None:
                xvfb.terminate()
                xvfb.wait(timeout=10)


def test_token_protects_a_real_server(live: LiveDesktop):
    server = live.start_desktopd(env={"DESKTOPD_TOKEN": "tok-123"})
    try:
        assert server.request("GET", "/health").status_code == 200
        assert server.request("GET", "/api/v1/tree").status_code == 401
        server.token = "tok-123"
        assert server.request("GET", "/api/v1/tree").status_code == 200
    finally:
        server.stop()


def assert_degraded_without_display(server) -> None:
    """desktopd up, its display not (yet): health says so and the API answers 503 to retry."""
    health = server.request("GET", "/health")
    assert health.status_code == 503 and health.json()["status"] == "degraded"
    resp = server.request("GET", "/api/v1/tree")
    assert resp.status_code == 503 and "Retry-After" in resp.headers


def assert_serves_the_640x480_screen(server) -> None:
    """Connected to the display that appeared: its size known, its far corner tappable."""
    assert server.request("GET", "/health").json()["screen"] == {"width": 640, "height": 480}
    assert server.request("POST", "/api/v1/tablet", json={"x": 639, "y": 479}).status_code == 200


@pytest.mark.x11
def test_starts_before_the_display_and_connects_when_it_appears():
    require(have_program("Xvfb"), "Xvfb")
    number = _free_high_display()
    server = start_desktopd(f":{number}")  # nothing listens on that display yet
    xvfb = None
    try:
        assert_degraded_without_display(server)
        xvfb = _start_xvfb_on(number)
        assert_serves_the_640x480_screen(server)
    finally:
        server.stop()
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(timeout=10)


def test_compat_batches_as_long_as_harnesses_send_them_in_order(desktopd, recorder):
    post(desktopd, "/api/v1/tablet", {"x": 200, "y": 250, "action": "tap"})
    recorder.collect("release", 1)
    text = ("The original harness types 600 characters as 1,200 key events: " * 10)[:600]
    events = [{"keysym": char if char != " " else "space", "state": state}
              for char in text for state in ("down", "up")]
    assert len(events) == 1200
    assert post(desktopd, "/api/v1/keyboard_event", {"events": events}, status=204) is None
    assert recorder.text().endswith(text)
    # A bad event late in a long batch fails it before anything is sent, naming it.
    late_typo = [*events[:40], {"keysym": "NoSuchKey", "state": "down"}]
    reply = desktopd.request("POST", "/api/v1/keyboard_event", json={"events": late_typo})
    assert reply.status_code == 422 and reply.json()["field"] == "events[40].keysym", reply.text
    assert recorder.text().endswith(text)


@pytest.mark.sway
def test_503_while_the_compositor_is_gone_then_recovery_on_sway():
    """Sway's twin of the Xvfb test above: Sway stopped, then started again on the same sockets."""
    with running_sway(640, 480) as sway:
        server = start_desktopd(sway.wayland_display, "--backend", "sway", "--wayland-display",
                                sway.wayland_display, env=sway.env())
        again = None
        try:
            assert server.request("GET", "/health").status_code == 200
            assert decode(server.request("GET", "/api/v1/screenshot")).size == (640, 480)
            stop_sway(sway)
            resp = server.request("GET", "/api/v1/screenshot")
            assert resp.status_code == 503 and resp.json()["error"] == "unavailable", resp.text
            health = server.request("GET", "/health")
            assert health.status_code == 503 and health.json()["x_connected"] is False
            assert server.request("POST", "/api/v1/tablet", json={"x": 1, "y": 1}).status_code == 503
            again = launch_sway(sway.runtime_dir, 640, 480)
            assert again.wayland_display == sway.wayland_display
            health = server.request("GET", "/health")  # the first request after the return reconnects
            assert health.status_code == 200 and health.json()["x_connected"] is True, health.text
            assert decode(server.request("GET", "/api/v1/screenshot")).size == (640, 480)
            assert server.request("POST", "/api/v1/tablet", json={"x": 5, "y": 5}).json()["x"] == 5
            assert server.request("PUT", "/api/v1/clipboard", json={"text": "back"}).status_code == 200
            assert server.request("GET", "/api/v1/clipboard").json()["text"] == "back"
        finally:
            server.stop()
            if again is not None:
                stop_sway(again)


@pytest.mark.sway
def test_starts_before_sway_and_connects_when_it_appears():
    with running_sway(640, 480) as first:
        stop_sway(first)      # a runtime directory of Sway's user, with no Sway in it yet
        server = start_desktopd("wayland-1", "--backend", "sway", "--wayland-display", "wayland-1",
                                env={**first.env(), "WAYLAND_DISPLAY": "wayland-1"})
        sway = None
        try:
            assert_degraded_without_display(server)
            sway = launch_sway(first.runtime_dir, 640, 480)
            assert sway.wayland_display == "wayland-1"   # libwayland's first free name
            assert_serves_the_640x480_screen(server)
        finally:
            server.stop()
            if sway is not None:
                stop_sway(sway)
