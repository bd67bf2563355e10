"""Every button of the test page, clicked through desktopd at its /layout screen centre, records
a click on exactly itself: scrolled, zoomed, at device scale 2, in a same-origin iframe, in an
out-of-process iframe, position:fixed and sticky, CSS-transformed, in an inner scroller."""

from __future__ import annotations

import pytest

from .clicking import click_every_button
from .harness import launch_chromium

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

MAIN_BUTTONS = 18     # 12 in main.html + 3 in each of its two iframes
ALL_IDS = {"b-sticky", "b-top", "b-wide", "b-rot", "b-scaled", "b-csszoom", "b-inner", "b-far",
           "b-right", "b-bottom", "b-fixed", "same-f-one", "same-f-two", "same-f-three",
           "cross-f-one", "cross-f-two", "cross-f-three"}


async def test_every_button_is_clicked_at_its_screen_centre(chromium, desktopd, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    clicked = await click_every_button(chromium, desktopd, page, len(ALL_IDS))
    assert set(clicked) == ALL_IDS
