"""The endpoints test_live_integration.py does not reach, on each backend (conftest.py's
``live``): /step, the vendor computer endpoints, the window actions, /reset and recording. What a
backend cannot do is answered 501 naming it, and that answer is what its test asserts."""

from __future__ import annotations

import time

from testbed.recorder import Recorder

from .conftest import RECORDER_AT, LiveDesktop


def post(live: LiveDesktop, path: str, body: dict, status: int = 200) -> dict:
    resp = live.desktopd.request("POST", path, json=body)
    assert resp.status_code == status, resp.text
    return resp.json()


def press_at(recorder: Recorder, button: int = 1) -> dict:
    events = recorder.collect("release", button)
    return next(e for e in events if e["ev"] == "press" and e["b"] == button)


def test_step_acts_and_reports_its_settling(live: LiveDesktop, recorder: Recorder) -> None:
    body = post(live, "/api/v1/step", {"tablet": {"action": "tap", "x": 160, "y": 240}, "windows": True})
    assert press_at(recorder) == {"ev": "press", "b": 1, "x": 160, "y": 240}
    assert body["act"] == "tablet" and body["settled"]["reason"], body["settled"]
    assert any(w["title"] == "recorder" for w in body["windows"]), body["windows"]


def test_the_vendor_computer_endpoints_click_where_they_say(live: LiveDesktop, recorder: Recorder) -> None:
    assert live.desktopd.request("GET", "/api/v1/computer/anthropic").status_code == 200
    body = post(live, "/api/v1/computer/anthropic", {"action": "left_click", "coordinate": [170, 230]})
    press = press_at(recorder)
    assert (press["x"], press["y"]) == (170, 230), body
    body = post(live, "/api/v1/computer/openai", {"action": {"type": "click", "button": "right", "x": 180, "y": 220}})
    press = press_at(recorder, 3)
    assert (press["x"], press["y"]) == (180, 220), body


def window_named(live: LiveDesktop, title: str) -> dict:
    return next(w for w in live.desktopd.request("GET", "/api/v1/tree").json()["windows"] if w["title"] == title)


def test_window_actions_resize_minimize_maximize_restore(live: LiveDesktop, recorder: Recorder) -> None:
    wid = window_named(live, "recorder")["id"]
    post(live, f"/api/v1/windows/{wid}/resize", {"width": 300, "height": 200})
    client = live.desktopd.request("GET", f"/api/v1/windows/{wid}").json()["client"]
    assert (client["width"], client["height"]) == (300, 200), client
    post(live, f"/api/v1/windows/{wid}/minimize", {})
    assert live.desktopd.request("GET", f"/api/v1/windows/{wid}").json()["minimized"] is True
    post(live, f"/api/v1/windows/{wid}/restore", {})
    assert live.desktopd.request("GET", f"/api/v1/windows/{wid}").json()["minimized"] is False
    if live.backend == "x11":
        return   # the session's Xvfb runs no window manager to maximize (tests/desktopd_x11/test_windows_wm.py)
    post(live, f"/api/v1/windows/{wid}/maximize", {})
    assert live.desktopd.request("GET", f"/api/v1/windows/{wid}").json()["maximized"] is True
    post(live, f"/api/v1/windows/{wid}/restore", {})
    assert live.desktopd.request("GET", f"/api/v1/windows/{wid}").json()["maximized"] is False


def test_reset_closes_the_windows_clears_the_clipboard_and_homes_the_pointer(live: LiveDesktop,
                                                                            recorder: Recorder) -> None:
    assert live.desktopd.request("PUT", "/api/v1/clipboard", json={"text": "left over"}).status_code == 200
    body = post(live, "/api/v1/reset", {"pointer": [RECORDER_AT[0] + 20, RECORDER_AT[1] + 20]})
    assert body["clipboard_cleared"] is True and body["pointer"] == [120, 120], body
    assert recorder.process.wait(timeout=15) == 0        # the window was asked to close, and did
    assert live.desktopd.request("GET", "/api/v1/clipboard").json()["empty"] is True
    deadline = time.monotonic() + 10
    while any(w["title"] == "recorder" for w in live.desktopd.request("GET", "/api/v1/tree").json()["windows"]):
        assert time.monotonic() < deadline, "the recorder's window is still listed"
        time.sleep(0.05)


def test_recording_starts_on_x11_and_is_501_naming_sway(live: LiveDesktop) -> None:
    resp = live.desktopd.request("POST", "/api/v1/recording/start", json={})
    if live.backend == "sway":
        body = resp.json()
        assert resp.status_code == 501 and body["error"] == "not_supported" and body["backend"] == "sway", body
        return
    assert resp.status_code == 200, resp.text
    stopped = post(live, "/api/v1/recording/stop", {})
    assert live.desktopd.request("DELETE", f"/api/v1/recording/{stopped['id']}").status_code in (200, 204)
