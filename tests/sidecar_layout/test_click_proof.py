"""Every button of the test page, clicked through desktopd at its /layout screen centre, records
a click on exactly itself: scrolled, zoomed, at device scale 2, in a same-origin iframe, in an
out-of-process iframe, position:fixed and sticky, CSS-transformed, in an inner scroller."""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest

from testbed.capability import have_program, require
from testbed.children import stop_process_group
from testbed.wm import wait_for_window_manager
from testbed.xvfb import start_xvfb

from .clicking import NEXT_FRAME_JS, click_every_button
from .harness import launch_chromium, start_desktopd
from .schema import validate_layout

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

ALL_IDS = {"b-sticky", "b-top", "b-wide", "b-rot", "b-scaled", "b-csszoom", "b-inner", "b-far",
           "b-right", "b-bottom", "b-fixed", "b-shadow", "same-f-one", "same-f-two", "same-f-three",
           "cross-f-one", "cross-f-two", "cross-f-three"}


async def test_every_button_is_clicked_at_its_screen_centre(chromium, desktopd, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    clicked = await click_every_button(chromium, desktopd, page, len(ALL_IDS))
    assert set(clicked) == ALL_IDS


async def _click_all(display, page_server, *, extra=(), position=(30, 20), size=(1100, 760),
                     zoom_keys="", expect_zoom=1.0, expect_scale=1.0):
    browser = await launch_chromium(display, extra=extra, position=position, size=size)
    service = await start_desktopd(display)
    try:
        page = await browser.page()
        await browser.navigate(page, page_server.url("main.html"), children=1)
        if zoom_keys:
            await service.keys(zoom_keys)     # real browser zoom, as a user sets it
            await browser.evaluate(page, NEXT_FRAME_JS)
        body = await browser.layout()
        validate_layout(body)
        viewport = body["tabs"][0]["layout"]["viewport"]
        assert viewport["visualViewport"]["zoom"] == pytest.approx(expect_zoom)
        assert viewport["deviceScaleFactor"] == pytest.approx(expect_scale)
        clicked = await click_every_button(browser, service, page, len(ALL_IDS))
        assert set(clicked) == ALL_IDS
    finally:
        await service.close()
        await browser.close()


async def test_clicks_land_with_browser_page_zoom(xvfb, need_browser, page_server):
    # Ctrl+= three times: 110 %, 125 %, 150 %.
    await _click_all(xvfb.display, page_server, zoom_keys="ctrl+equal ctrl+equal ctrl+equal",
                     expect_zoom=1.5)


async def test_clicks_land_at_device_scale_factor_2(xvfb, need_browser, page_server):
    # 600x380 DIP is 1200x760 screen pixels at scale 2: the window still fits the 1280x800 display.
    await _click_all(xvfb.display, page_server, extra=("--force-device-scale-factor=2",),
                     position=(20, 10), size=(600, 380), expect_zoom=1.0, expect_scale=2.0)


async def test_clicks_land_at_device_scale_2_and_page_zoom(xvfb, need_browser, page_server):
    await _click_all(xvfb.display, page_server, extra=("--force-device-scale-factor=2",),
                     position=(20, 10), size=(600, 380), zoom_keys="ctrl+minus",
                     expect_zoom=0.9, expect_scale=2.0)


async def test_clicks_land_under_a_window_manager(need_browser, page_server, tmp_path):
    require(have_program("xfwm4") and have_program("dbus-run-session"),
            "xfwm4 and dbus-run-session (the image's window manager needs a session bus)")
    server = start_xvfb(1280, 800, log_path=str(tmp_path / "xvfb.log"))
    wm = subprocess.Popen(["dbus-run-session", "--", "xfwm4", "--compositor=off"],
                          env={**os.environ, "DISPLAY": server.display}, start_new_session=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        await asyncio.to_thread(wait_for_window_manager, server.display)
        await _click_all(server.display, page_server, position=(60, 45), size=(1000, 700))
    finally:
        stop_process_group(wm)
        server.stop()


async def test_clicks_land_in_nested_frames(chromium, desktopd, page_server):
    """An out-of-process frame inside a same-origin one, and a frame inside an out-of-process
    one (in that one's process): offsets chain through every level."""
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("nested.html"), children=2)
    clicked = await click_every_button(chromium, desktopd, page, 7)
    assert set(clicked) == {"n-top", "deep-f-one", "deep-f-two", "deep-f-three",
                            "inner-f-one", "inner-f-two", "inner-f-three"}


async def test_clicks_land_in_a_frame_of_the_page_origin_inside_a_cross_origin_one(
        chromium, desktopd, page_server):
    """this origin > other origin > this origin (ads do this): the innermost frame is its own
    target, and its owner element lives in the middle frame's renderer, not the page's."""
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("aba.html"), children=2)
    layout = (await chromium.layout(roles="RootWebArea,Iframe,button"))["tabs"][0]["layout"]
    by_id = {n["nodeId"]: n for n in layout["nodes"]}
    inner = next(n for n in layout["nodes"] if n["role"]["value"] == "RootWebArea" and n["name"]["value"] == "frame")
    owner = by_id[inner["parentId"]]
    assert owner["role"]["value"] == "Iframe" and owner["targetId"] != page.target_id
    clicked = await click_every_button(chromium, desktopd, page, 4)
    assert set(clicked) == {"aba-top", "back-f-one", "back-f-two", "back-f-three"}
