"""POST /api/v1/vision/act settles as the vendor endpoints do: a plan of one left click asks the
browser for its word (the sidecar's POST /settle), so a page the click changes at once is in
the screenshot the next model call sees, with the verdict in the trace. Real Xvfb, Chromium
(the sidecar) and desktopd; the model is the local vendor stand-in (testbed/vendor_server.py)."""

from __future__ import annotations

import asyncio
import base64
import io
import json

import aiohttp
import pytest
from PIL import Image

from desktopd_kit import Desktop
from testbed.vendor_server import VendorServer
from tests.sidecar_layout.harness import sidecar_and_desktopd
from tests.vision.test_act_x11 import KEY, anthropic_reply

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

POINT = (640, 600)      # inside the page, below the browser's toolbar (1280x800 screen)


def prepare(desktop: Desktop, url: str) -> None:
    with desktop:
        desktop.wait_until_healthy(timeout=60)
        desktop.anthropic({"action": "left_click", "coordinate": [640, 300]})
        desktop.navigate(next(t for t in desktop.tabs() if t["visible"])["id"], url)
        assert desktop.step(screenshot=None, settle=5.0, settle_quiet=0.5)["settled"]["reason"] == "quiet"


async def test_a_one_click_plan_settles_on_the_browsers_word(tmp_path, pages, monkeypatch):
    (tmp_path / "key").write_text(KEY + "\n")
    vendor = VendorServer()
    models = {"default": "claude", "models": {"claude": {
        "api": "anthropic", "base_url": vendor.url, "model": "anthropic-model", "key_file": str(tmp_path / "key")}}}
    (tmp_path / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("DESKTOPD_VISION_MODELS", str(tmp_path / "models.json"))
    vendor.script("/v1/messages",
                  anthropic_reply({"type": "tool_use", "id": "toolu_1", "name": "computer",
                                   "input": {"action": "left_click", "coordinate": list(POINT)}}),
                  anthropic_reply({"type": "text", "text": "Done."}))
    try:
        async with sidecar_and_desktopd(tmp_path, pages.url("settle-docs.html"),
                                        desktopd_knows_sidecar=True) as (sidecar, desktopd, session):
            # The page's tracker is installed at the first request, and from then on in every new
            # document: a click on still prose first, then the page under test.
            await asyncio.to_thread(prepare, Desktop(desktopd.url, sidecar_url=sidecar.url),
                                    pages.url("settle-react.html?delay=0"))
            async with session.post(desktopd.url + "/api/v1/vision/act", json={"instruction": "turn it red"},
                                    timeout=aiohttp.ClientTimeout(total=120)) as response:
                answer = await response.json()
                assert response.status == 200, answer
    finally:
        await asyncio.to_thread(vendor.stop)
    settled = answer["trace"][0]["settled"]
    assert settled["browser"]["evidence"] == "changed", settled
    seen = vendor.requests["/v1/messages"][1]["messages"][-1]["content"][0]["content"][-1]
    image = Image.open(io.BytesIO(base64.b64decode(seen["source"]["data"]))).convert("RGB")
    assert image.getpixel(POINT) == (255, 0, 0), settled
