"""POST /api/v1/reset on a real Xvfb with real X clients (no sidecar configured)."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from testbed.capability import have_program, require

pytestmark = pytest.mark.x11


def wait_for_window(desktopd, wm_class: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for window in desktopd.request("GET", "/api/v1/tree").json()["windows"]:
            if wm_class in (window["wm_class"] or []):
                return window
        time.sleep(0.1)
    raise AssertionError(f"no {wm_class} window appeared")


def pointer(desktopd) -> str:
    body = desktopd.request("POST", "/api/v1/computer/anthropic", json={"action": "cursor_position"})
    return body.json()["content"][0]["text"]


def test_reset_closes_apps_clears_the_clipboard_and_homes_the_pointer(desktopd, xvfb, recorder):
    require(have_program("xterm"), "xterm (Debian package xterm)")
    env = {**os.environ, "DISPLAY": xvfb.display}
    xterm = subprocess.Popen(["xterm", "-class", "ResetTestTerm"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_window(desktopd, "ResetTestTerm")
        assert desktopd.request("PUT", "/api/v1/clipboard", json={"text": "left over"}).status_code == 200
        desktopd.request("POST", "/api/v1/tablet", json={"action": "move", "x": 10, "y": 20})
        resp = desktopd.request("POST", "/api/v1/reset", json={"keep": ["Tk"]})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert xterm.wait(timeout=20) is not None                 # the xterm is gone
        assert body["clipboard_cleared"] is True and body["browser"] is None
        assert desktopd.request("GET", "/api/v1/clipboard").json() == {"text": None, "empty": True}
        assert body["pointer"] == [640, 400] and pointer(desktopd) == "X=640,Y=400"
        assert set(body["timings"]) == {"release_input", "windows", "clipboard", "pointer"}
        # the window whose class is in keep (the Tk recorder: "tk", "Tk") stays
        classes = [w["wm_class"] for w in desktopd.request("GET", "/api/v1/tree").json()["windows"]]
        assert classes == [["tk", "Tk"]], classes
        assert recorder.process.poll() is None
    finally:
        if xterm.poll() is None:
            xterm.kill()
            xterm.wait(timeout=10)


def test_reset_options_and_errors(desktopd):
    body = desktopd.request("POST", "/api/v1/reset", json={
        "close_windows": False, "clear_clipboard": False, "pointer": [5, 6]}).json()
    assert body["windows"] is None and body["clipboard_cleared"] is False
    assert pointer(desktopd) == "X=5,Y=6"
    for request, field in (({"urls": ["http://127.0.0.1/"]}, "urls"), ({"browser": True}, "browser"),
                           ({"pointer": [5000, 1]}, "pointer.x"), ({"windows": True}, "windows"),
                           ({"profile": "work"}, "profile"), ({"profile": "../etc"}, "profile")):
        resp = desktopd.request("POST", "/api/v1/reset", json=request)
        assert resp.status_code == 422 and resp.json()["field"] == field, resp.text
