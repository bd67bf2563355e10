"""A double click through desktopd registers as one in Chromium, every time: twenty tries through
/api/v1/tablet and twenty through the original's /api/v1/tablet_event, on a page that counts its
dblclick events (before, one try in three was two single clicks: both presses could carry the
same X timestamp)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from testbed.xvfb import start_xvfb

from .harness import launch_chromium, start_desktopd

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

PAGE = ("data:text/html,<title>0</title><body style='margin:0;height:100vh' "
        "ondblclick='document.title=String(Number(document.title)+1)'>")
TRIES = 20


async def test_every_double_click_registers(tmp_path: Path) -> None:
    xvfb = start_xvfb(1280, 800, log_path=str(tmp_path / "xvfb.log"))
    chromium = desktopd = None
    try:
        chromium = await launch_chromium(xvfb.display, size=(1200, 760))
        desktopd = await start_desktopd(xvfb.display)
        page = await chromium.page()
        await chromium.navigate(page, PAGE)
        for index in range(TRIES):
            # Apart from each other by more than a double-click interval, at varying points.
            x, y = 300 + 20 * index, 400
            if index % 2:
                await desktopd.post("/api/v1/tablet", {"action": "double_click", "x": x, "y": y})
            else:
                await desktopd.post_no_content("/api/v1/tablet_event",
                                               {"events": [{"type": "double_click", "x": x, "y": y}]})
            await asyncio.sleep(0.6)
        count = await chromium.evaluate(page, "Number(document.title)")
        assert count == TRIES, f"{count} of {TRIES} double clicks registered"
    finally:
        if desktopd is not None:
            await desktopd.close()
        if chromium is not None:
            await chromium.close()
        xvfb.stop()
