"""White captions on saturated dark buttons (real Tk buttons on Xvfb) beside dark text on white,
read from the whole screen through GET /api/v1/vision/text: every caption is found inside its
button. Tesseract's own page layout over the whole screen missed most of them."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from PIL import Image

from testbed.capability import debian_python_has, require
from testbed.recorder import Recorder

pytestmark = pytest.mark.x11

TITLE = "vision-dark-buttons"


def fill_rgb(fill: str) -> tuple[int, int, int]:
    return int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16)


def buttons_drawn(desktopd, buttons: list[dict], timeout: float = 20) -> None:
    """Wait until the screen shows every button's fill at its corner (evidence, not a sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shot = Image.open(io.BytesIO(desktopd.request("GET", "/api/v1/screenshot").content)).convert("RGB")
        if all(shot.getpixel((b["x"] + 2, b["y"] + 2)) == fill_rgb(b["fill"]) for b in buttons):
            return
    raise AssertionError("the buttons were never drawn")


@pytest.fixture
def buttons(desktopd, xvfb) -> list[dict]:
    require(debian_python_has("tkinter"), "/usr/bin/python3 with tkinter (python3-tk)")
    window = Recorder(xvfb.display, str(Path(__file__).with_name("buttons_window.py")), "60", "420", TITLE)
    try:
        buttons_drawn(desktopd, window.ready["buttons"])
        yield window.ready["buttons"]
    finally:
        window.stop()


def test_white_captions_on_dark_buttons_are_read_from_the_whole_screen(desktopd, buttons):
    answer = desktopd.request("GET", "/api/v1/vision/text")
    assert answer.status_code == 200, answer.text
    words = [w for line in answer.json()["lines"] for w in line["words"]]
    missing = []
    for button in buttons:
        inside = [w for w in words if w["text"] == button["text"]
                  and button["x"] <= w["center"]["x"] < button["x"] + button["width"]
                  and button["y"] <= w["center"]["y"] < button["y"] + button["height"]]
        if not inside:
            missing.append(button["text"])
    assert not missing, (missing, [w["text"] for w in words])
    assert "invoices" in [w["text"] for w in words]   # the dark-on-white lines too
