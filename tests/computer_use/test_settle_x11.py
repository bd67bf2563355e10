"""POST /api/v1/step settling on X damage with plain X clients on the session's Xvfb (no
browser): a root window painted a moment after the request is in the answer's image; one
repainted without pause ends the wait at the maximum; settle=0 does not wait."""

from __future__ import annotations

import base64
import io
import os
import signal
import sys

import pytest
from PIL import Image

from testbed.capability import have_program, require

pytestmark = pytest.mark.x11


def step(desktopd, **body) -> dict:
    resp = desktopd.request("POST", "/api/v1/step", json=body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def start(desktopd, script: str) -> int:
    resp = desktopd.request("POST", "/api/v1/execute", json={"command": script, "detach": True})
    assert resp.status_code == 200, resp.text
    return resp.json()["pid"]


def corner(answer: dict) -> tuple[int, int, int]:
    data = base64.b64decode(answer["screenshot"]["data"])
    return Image.open(io.BytesIO(data)).convert("RGB").getpixel((2, 2))


def test_a_change_after_the_request_is_waited_for(desktopd):
    require(have_program("xsetroot"), "xsetroot (Debian package x11-xserver-utils)")
    start(desktopd, "xsetroot -solid black")
    assert step(desktopd, settle=5.0, settle_quiet=0.5)["settled"]["reason"] == "quiet"
    start(desktopd, "sleep 0.2; xsetroot -solid '#ff0000'")
    answer = step(desktopd, screenshot={"format": "png"}, settle=5.0, settle_quiet=2.0)
    assert answer["settled"]["reason"] == "quiet" and answer["settled"]["changes"] >= 1, answer["settled"]
    assert corner(answer) == (255, 0, 0)
    start(desktopd, "xsetroot -solid black")


# One X client repainting the root every 10 ms (a process, not a shell loop of xsetroot: starting
# a process per frame leaves gaps on a busy host).
ANIMATE = """
import sys, time
from Xlib import display
dpy = display.Display(sys.argv[1])
root = dpy.screen().root
for frame in range(100_000):
    root.change_attributes(background_pixel=0x0000FF if frame % 2 else 0x00FF00)
    root.clear_area()
    dpy.sync()
    time.sleep(0.01)
"""


def test_a_screen_that_keeps_changing_ends_at_the_maximum(desktopd, xvfb):
    require(have_program("xsetroot"), "xsetroot (Debian package x11-xserver-utils)")
    resp = desktopd.request("POST", "/api/v1/execute",
                            json={"command": [sys.executable, "-c", ANIMATE, xvfb.display], "detach": True})
    assert resp.status_code == 200, resp.text
    pid = resp.json()["pid"]
    try:
        # Animating once the root shows one of its colours (each look waits up to 0.1 s for a change).
        for _ in range(300):
            if corner(step(desktopd, screenshot={"format": "png", "region": "0,0,4,4"}, settle=0.1,
                           settle_quiet=0.1)) in ((0, 0, 255), (0, 255, 0)):
                break
        else:
            raise AssertionError("the animating client never drew")
        answer = step(desktopd, screenshot={"format": "jpeg", "max_width": 320}, settle=1.0, settle_quiet=0.3)
        settled = answer["settled"]
        assert settled["reason"] == "max" and settled["changes"] > 1, settled
        assert answer["screenshot"]["width"] == 320 and answer["pointer"].keys() == {"x", "y", "source"}
        assert answer["pointer"]["source"] == "server"   # X11 reads the pointer from the server
    finally:
        os.killpg(pid, signal.SIGTERM)   # its own session: the loop and its xsetroot
    assert step(desktopd, settle=0)["settled"]["reason"] == "skipped"
    start(desktopd, "xsetroot -solid black")   # the session's Xvfb as the other tests found it
