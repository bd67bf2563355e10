"""Vision on a page with no tree: a form drawn on a canvas in a real Chromium (sidecar) and
desktopd on a fresh Xvfb. The page knows every drawn word's box (the truth) and records the
clicks and keys it gets, so /vision/text is scored against what was drawn, and /vision/click and
/vision/fill are proven by what the page itself saw."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import requests

from desktopd.vision.text import Box
from desktopd_kit import Desktop
from testbed.ocr_truth import TrueWord, score
from testbed.pages import PageServer
from tests.sidecar_layout.harness import sidecar_and_desktopd
from tests.vision.test_text_x11 import lines_of

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

CANVAS = (1000, 560)


def evaluate(sidecar_url: str, function: str) -> Any:
    answer = requests.post(sidecar_url + "/act", json={"kind": "evaluate", "mode": "cdp",
                                                      "function": function}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def page_state(sidecar_url: str) -> dict[str, Any]:
    return evaluate(sidecar_url, "() => window.state")


def state_when(sidecar_url: str, done: Any, timeout: float = 15) -> dict[str, Any]:
    """The page's state once ``done(state)`` holds (events reach the page asynchronously)."""
    deadline = time.monotonic() + timeout
    state = page_state(sidecar_url)
    while not done(state) and time.monotonic() < deadline:
        state = page_state(sidecar_url)
    return state


def viewport_origin(sidecar_url: str) -> tuple[int, int]:
    """The page's top-left on the screen: the window's place plus the browser's own bars above
    the page (no window manager here, so no frame around them)."""
    where = evaluate(sidecar_url, "() => [screenX + (outerWidth - innerWidth) / 2, "
                                  "screenY + outerHeight - innerHeight]")
    return round(where[0]), round(where[1])


def run(desktop: Desktop, sidecar_url: str, desktopd_url: str, pages: PageServer) -> None:
    desktop.wait_until_healthy(timeout=60)
    tab = next(t for t in desktop.tabs() if t["visible"])
    desktop.navigate(tab["id"], pages.url("vision-canvas.html"))
    assert desktop.step(screenshot=None, settle=5.0, settle_quiet=0.5)["settled"]["reason"] == "quiet"
    ox, oy = viewport_origin(sidecar_url)
    truth = [TrueWord(w["text"], Box(w["x"] + ox, w["y"] + oy, w["width"], w["height"]))
             for w in page_state(sidecar_url)["words"]]
    http = requests.Session()

    # Every drawn word, read back from the page's pixels (the viewport's region of the screen).
    viewport = f"{ox},{oy},{min(CANVAS[0], 1280 - ox)},{min(CANVAS[1], 800 - oy)}"
    read = http.get(desktopd_url + "/api/v1/vision/text", params={"region": viewport}, timeout=60)
    assert read.status_code == 200, read.text
    got = score(lines_of(read.json()), truth)
    assert got.recall >= 0.8 and got.precision >= 0.8 and got.mean_iou >= 0.6, got

    # The drawn button, found by its text anywhere on the screen, and clicked: the page says so.
    clicked = http.post(desktopd_url + "/api/v1/vision/click", json={"text": "Submit"}, timeout=60)
    assert clicked.status_code == 200, clicked.text
    state = state_when(sidecar_url, lambda s: s["clicks"])
    assert [c["button"] for c in state["clicks"]] == ["Submit"], state["clicks"]

    # Ambiguous and absent texts: the candidates with their boxes, and no click at all.
    many = http.post(desktopd_url + "/api/v1/vision/click", json={"text": "e", "region": viewport}, timeout=60)
    assert many.status_code == 409, many.text
    assert len(many.json()["candidates"]) >= 2 and all("box" in c for c in many.json()["candidates"])
    none = http.post(desktopd_url + "/api/v1/vision/click", json={"text": "Submitted order"}, timeout=60)
    assert none.status_code == 404, none.text
    assert none.json()["candidates"], none.json()
    assert len(page_state(sidecar_url)["clicks"]) == 1
    second = http.post(desktopd_url + "/api/v1/vision/click",
                       json={"text": "e", "nth": 1, "region": viewport}, timeout=60)
    assert second.status_code == 200, second.text
    assert second.json()["match"] == many.json()["candidates"][1]

    # Typing into the drawn fields by their labels; a second fill replaces the first.
    for label, text in (("Name", "Alice Smith"), ("City", "Paris"), ("City", "Lyon")):
        filled = http.post(desktopd_url + "/api/v1/vision/fill",
                           json={"label": label, "text": text, "exact": True, "region": viewport}, timeout=60)
        assert filled.status_code == 200, filled.text
        assert filled.json()["field"]["side"] == "right"
        state = state_when(sidecar_url, lambda s, label=label, text=text: s["fields"][label] == text)
        assert state["fields"][label] == text, state


async def test_canvas_form_is_read_clicked_and_filled_by_its_pixels(tmp_path, pages):
    async with sidecar_and_desktopd(tmp_path, pages.url("vision-canvas.html")) as (sidecar, desktopd, _):
        with Desktop(desktopd.url, sidecar_url=sidecar.url) as desktop:
            await asyncio.to_thread(run, desktop, sidecar.url, desktopd.url, pages)
