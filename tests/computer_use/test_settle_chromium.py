"""Settling on evidence with a real Chromium (sidecar) and desktopd on a fresh Xvfb: a page that
turns red N ms after a click is seen red in the screenshot the act answers with, for every N
within the quiet window; the old fixed 100 ms pause misses a later reaction; a spinner that never
stops ends the wait at the maximum, and the answer says so. With the browser's evidence (the
default), a click on a still page ends on the page's word, and a reaction the page scheduled
(a timer its click handler set, 0-150 ms) is waited for even past the quiet window, which X
damage alone with the same window misses. A change drawn at once, in one frame, ends the wait
on that frame's damage, also when the browser redraws its whole window with it."""

from __future__ import annotations

import asyncio
import base64
import io

import pytest
from PIL import Image

from desktopd_kit import Desktop
from testbed.pages import PageServer
from testbed.x11_fixtures import pages  # noqa: F401 (fixture)
from tests.sidecar_layout.harness import sidecar_and_desktopd

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

RED, WHITE = (255, 0, 0), (255, 255, 255)
POINT = (640, 600)           # inside the page's viewport, below the browser's toolbar
STILL = {"settle": 5.0, "settle_quiet": 0.5}   # before each act: the page is drawn and still
LATE_MS = 600                # a reaction X damage alone with a 100 ms window must miss


def open_page(desktop: Desktop, url: str) -> None:
    tab = next(t for t in desktop.tabs() if t["visible"])
    desktop.navigate(tab["id"], url)
    still = desktop.step(screenshot=None, **STILL)["settled"]
    assert still["reason"] == "quiet", still


def pixel_of_png(data: str) -> tuple[int, int, int]:
    return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB").getpixel(POINT)


def click_and_look(desktop: Desktop, **settle: float | bool) -> tuple[tuple[int, int, int], dict]:
    answer = desktop.anthropic({"action": "left_click", "coordinate": list(POINT)}, **settle)
    image = next(block for block in answer["content"] if block["type"] == "image")
    return pixel_of_png(image["source"]["data"]), answer["settled"]


def run(desktop: Desktop, pages: PageServer) -> None:
    desktop.wait_until_healthy(timeout=60)
    for delay in (0, 20, 50, 150):
        open_page(desktop, pages.url(f"settle-react.html?delay={delay}"))
        colour, settled = click_and_look(desktop, settle=3.0, settle_quiet=0.4)
        assert colour == RED, (delay, settled)
        assert settled["reason"] == "quiet" and settled["changes"] >= 1, (delay, settled)

    # The old behaviour: a fixed 100 ms pause (settle = settle_quiet = 0.1 waits exactly that
    # long without a change) captures a page reacting later before it reacts (600 ms, not 150:
    # a capture that a loaded host delays by 50 ms must not turn the miss into a catch).
    open_page(desktop, pages.url(f"settle-react.html?delay={LATE_MS}"))
    colour, settled = click_and_look(desktop, settle=0.1, settle_quiet=0.1, settle_browser=False)
    assert colour == WHITE, settled

    # The same page, observed through POST /api/v1/step: the act and the observation in one call.
    open_page(desktop, pages.url("settle-react.html?delay=150"))
    answer = desktop.step({"tablet": {"action": "click", "x": POINT[0], "y": POINT[1]}},
                          screenshot={"format": "png"}, windows=True, settle=3.0, settle_quiet=0.4)
    assert pixel_of_png(answer["screenshot"]["data"]) == RED, answer["settled"]
    assert answer["pointer"] == {"x": POINT[0], "y": POINT[1], "source": "server"}   # read from the X server
    assert any("chrom" in " ".join(w["wm_class"] or []).lower() for w in answer["windows"])

    # The browser's evidence (on by default; the first click above put the page's tracker in
    # every later document). A click on still prose: the page took it and has nothing to draw.
    open_page(desktop, pages.url("settle-docs.html"))
    _colour, settled = click_and_look(desktop, settle_quiet=0.4)
    assert settled["reason"] == "quiet" and settled["evidence"] == "browser", settled
    assert settled["browser"]["evidence"] == "idle" and settled["changes"] == 0, settled
    # Reactions the click handler starts at once or schedules are in the answer, with the
    # default maximum and a window shorter than the 150 ms timer.
    for delay in (0, 20, 50, 150):
        open_page(desktop, pages.url(f"settle-react.html?delay={delay}"))
        colour, settled = click_and_look(desktop, settle_quiet=0.1)
        assert colour == RED, (delay, settled)
        assert settled["browser"]["evidence"] == "changed" and settled["evidence"] == "damage", (delay, settled)
    # A change the click handler makes at once is drawn in one frame, which the page produced
    # before answering (damage inside the viewport then ends the wait after a short window_s,
    # not the quiet window: tests/desktopd_api/test_settle_units.py); the screenshot shows it.
    open_page(desktop, pages.url("settle-react.html?delay=0"))
    colour, settled = click_and_look(desktop, settle_quiet=0.4)
    assert colour == RED and settled["browser"].get("one_frame") is True, settled
    # A page whose click also retitles its tab: Chromium may present the tab strip and the
    # page's frame in one redraw covering the whole window; that is the page's frame too. Each
    # screenshot shows its click's flip (points far apart: never a double click).
    open_page(desktop, pages.url("step-flip.html"))
    shown, framed = [], []
    for i in range(6):
        point = (400, 400) if i % 2 == 0 else (900, 650)
        answer = desktop.anthropic({"action": "left_click", "coordinate": list(point)}, settle_quiet=0.4)
        data = next(block for block in answer["content"] if block["type"] == "image")["source"]["data"]
        shown.append(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB").getpixel(point))
        framed.append("window_s" in answer["settled"] and "drawn_s" in answer["settled"]["browser"])
    assert shown == [(0, 0, 0), (255, 255, 255)] * 3, shown
    assert any(framed), framed
    # The same window on X damage alone captures a page reacting later before it reacts.
    open_page(desktop, pages.url(f"settle-react.html?delay={LATE_MS}"))
    colour, settled = click_and_look(desktop, settle_quiet=0.1, settle_browser=False)
    assert colour == WHITE and "browser" not in settled, settled

    # A page that never stops moving: the wait ends at the maximum and says so.
    desktop.navigate(next(t for t in desktop.tabs() if t["visible"])["id"], pages.url("settle-spinner.html"))
    # A window longer than any gap between its frames (dropped frames on a busy host included).
    colour, settled = click_and_look(desktop, settle=1.5, settle_quiet=0.5)
    assert settled["reason"] == "max" and settled["changes"] >= 1, settled
    assert settled["waited_s"] >= 1.5


async def test_settle_waits_for_reactions_and_stops_at_the_maximum(tmp_path, pages):
    async with sidecar_and_desktopd(tmp_path, pages.url("settle-react.html"),
                                    desktopd_knows_sidecar=True) as (sidecar, desktopd, _session):
        with Desktop(desktopd.url, sidecar_url=sidecar.url) as desktop:
            await asyncio.to_thread(run, desktop, pages)
