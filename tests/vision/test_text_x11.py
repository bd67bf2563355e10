"""GET /api/v1/vision/text on a real Xvfb: a picture of text we drew (several fonts, sizes and
colours, so the true word boxes are known) shown in a Tk window, read back through desktopd's
capture; scored on word recall, precision and box overlap, also for a region and the window."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from PIL import Image

from desktopd.vision.text import Box, Line, Word
from testbed.capability import debian_python_has, require
from testbed.desktopd import start_desktopd
from testbed.ocr_truth import TrueWord, score, synthetic_screen
from testbed.recorder import Recorder

pytestmark = pytest.mark.x11

WINDOW_AT = (40, 30)
TITLE = "vision-text-image"


def shown_on_screen(desktopd, image: Image.Image, at: tuple[int, int], timeout: float = 20) -> None:
    """Wait until the screen shows ``image`` at ``at`` pixel for pixel (evidence, not a sleep)."""
    region = f"{at[0]},{at[1]},{image.width},{image.height}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shot = desktopd.request("GET", "/api/v1/screenshot", params={"region": region})
        if Image.open(io.BytesIO(shot.content)).convert("RGB").tobytes() == image.tobytes():
            return
    raise AssertionError("the image window never showed the picture")


def lines_of(answer: dict) -> list[Line]:
    def box(b: dict) -> Box:
        return Box(b["x"], b["y"], b["width"], b["height"])
    return [Line(tuple(Word(w["text"], box(w["box"]), w["confidence"]) for w in line["words"]),
                 box(line["box"]), line["confidence"]) for line in answer["lines"]]


@pytest.fixture(scope="module")
def picture(desktopd, xvfb, tmp_path_factory) -> tuple[Image.Image, list[TrueWord]]:
    require(debian_python_has("tkinter"), "/usr/bin/python3 with tkinter (python3-tk)")
    image, truth = synthetic_screen((960, 540), seed=7)
    path = Path(tmp_path_factory.mktemp("vision")) / "text.png"
    image.save(path)
    window = Recorder(xvfb.display, str(Path(__file__).with_name("image_window.py")), str(path),
                      str(WINDOW_AT[0]), str(WINDOW_AT[1]), TITLE)
    try:
        shown_on_screen(desktopd, image, WINDOW_AT)
        yield image, [TrueWord(t.text, t.box.moved(*WINDOW_AT)) for t in truth]
    finally:
        window.stop()


def test_words_of_the_whole_screen_are_found_where_they_were_drawn(desktopd, picture):
    _, truth = picture
    answer = desktopd.request("GET", "/api/v1/vision/text")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["coordinate_space"] == "screen pixels"
    assert body["region"] == {"x": 0, "y": 0, "width": 1280, "height": 800, "space": "screen"}
    # The preferred engine, not the fallback (numpy and ONNX Runtime are in the test venv).
    assert body["engine"]["name"] == "tesseract-model-onnx" and "fallback" not in body["engine"], body["engine"]
    got = score(lines_of(body), truth)
    assert got.recall >= 0.95 and got.precision >= 0.95 and got.mean_iou >= 0.85, got
    word = body["lines"][0]["words"][0]
    b = word["box"]
    assert word["center"] == {"x": b["x"] + b["width"] // 2, "y": b["y"] + b["height"] // 2}


def test_a_region_reads_only_its_rectangle_in_screen_pixels(desktopd, picture):
    _, truth = picture
    region = (WINDOW_AT[0], WINDOW_AT[1], 480, 270)   # the picture's first panel
    inside = [t for t in truth if t.box.x + t.box.width <= region[0] + region[2]
              and t.box.y + t.box.height <= region[1] + region[3]]
    answer = desktopd.request("GET", "/api/v1/vision/text", params={"region": ",".join(map(str, region))})
    assert answer.status_code == 200, answer.text
    lines = lines_of(answer.json())
    assert all(region[0] <= w.box.x and w.box.x + w.box.width <= region[0] + region[2]
               for line in lines for w in line.words)
    got = score(lines, inside)
    assert got.recall >= 0.8 and got.precision >= 0.8 and got.mean_iou >= 0.7, got


def test_one_window_is_read_by_its_id(desktopd, picture):
    _, truth = picture
    tree = desktopd.request("GET", "/api/v1/tree").json()
    window = next(w for w in tree["windows"] if w["title"] == TITLE)
    answer = desktopd.request("GET", "/api/v1/vision/text", params={"window": str(window["id"])})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    client = window["client"]
    assert body["region"] == {"x": client["x"], "y": client["y"], "width": client["width"],
                              "height": client["height"], "space": "screen"}
    assert score(lines_of(body), truth).recall >= 0.8


@pytest.mark.parametrize("params, field", [
    ({"region": "0,0,0,10"}, "region"), ({"region": "0,0,5000,10"}, "region"),
    ({"region": "0,0,10,10", "window": "0x200001"}, "window"), ({"window": "banana"}, "window"),
    ({"min_confidence": "2"}, "min_confidence")])
def test_bad_queries_name_their_field(desktopd, params, field):
    answer = desktopd.request("GET", "/api/v1/vision/text", params=params)
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == field


def test_without_the_engine_the_text_routes_say_why(xvfb):
    """A desktop without Tesseract's model (as the desktop image): 503 ocr_unavailable naming it."""
    bare = start_desktopd(xvfb.display, env={"TESSDATA_PREFIX": "/nonexistent-tessdata"})
    try:
        for method, path, body in (("GET", "/api/v1/vision/text", None),
                                   ("POST", "/api/v1/vision/click", {"text": "Submit"})):
            answer = bare.request(method, path, json=body)
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"] == "ocr_unavailable"
            assert "tesseract-ocr-eng" in answer.json()["detail"]
    finally:
        bare.stop()
