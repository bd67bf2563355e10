"""The MCP tools on a real desktop: Xvfb, desktopd and a visible Chromium. browser_act's visible
mode and the desktop_* tools move the real pointer and keyboard; the page records what reached it."""

from __future__ import annotations

import pytest

from testbed.desktopd import start_desktopd

from .conftest import AUTH, loaded, start_sidecar
from .test_mcp import http_session, structured, text

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


@pytest.fixture
def desktopd(xvfb):
    server = start_desktopd(xvfb.display)
    try:
        yield server
    finally:
        server.stop()


async def test_visible_acts_and_desktop_tools_reach_the_page(chromium, xvfb, desktopd, pages, tmp_path) -> None:
    sidecar = await start_sidecar(tmp_path, "--display", xvfb.display, "--desktopd-url", desktopd.url,
                                  pages["form"], env={"DISPLAY": xvfb.display})
    try:
        await loaded(sidecar, pages["form"])
        async with http_session(sidecar) as session:
            shot = text(await session.call_tool("browser_snapshot", {"interactive": True}))
            ref = shot.split('button "Submit order" [ref=')[1].split("]")[0]
            acted = await session.call_tool("browser_act", {"kind": "click", "ref": ref})  # visible
            assert not acted.isError, text(acted)
            # The input's screen box from /layout, then a click and typing at the desktop level.
            status, layout = await sidecar.get("/layout", params={"interesting": "1", "roles": "textbox"},
                                               headers=AUTH)
            assert status == 200
            box = next(n for t in layout["tabs"] for n in t["layout"]["nodes"])["screen"]["center"]
            structured(await session.call_tool("desktop_click", {"x": round(box["x"]), "y": round(box["y"])}))
            typed = await session.call_tool("desktop_type", {"text": "héllo ✓"})
            assert not typed.isError, text(typed)
            state = structured(await session.call_tool("browser_playwright", {
                "code": "return {'clicks': await page.evaluate('clicks'), "
                        "'value': await page.input_value('#name')}"}))["result"]
            assert state == {"clicks": [{"id": "submit", "trusted": True}, {"id": "name", "trusted": True}],
                             "value": "héllo ✓"}
            picture = await session.call_tool("desktop_screenshot", {"max_width": 640})
            assert not picture.isError, text(picture)[:500]
            image = next(block for block in picture.content if block.type == "image")
            assert image.mimeType == "image/png" and len(image.data) > 1000
            assert f"screen {xvfb.width}x{xvfb.height}" in text(picture)
            windows = structured(await session.call_tool("desktop_windows", {}))
            assert any("Form" in (w.get("title") or "") for w in windows["windows"]), windows
            # Vision tools: the same button found by its pixels (OCR) and clicked on the screen.
            seen = structured(await session.call_tool("vision_read_text", {}))
            assert any("Submit order" in line["text"] for line in seen["lines"]), seen
            structured(await session.call_tool("vision_click", {"text": "Submit order"}))
            scrolled = await session.call_tool("desktop_scroll", {"x": round(box["x"]), "y": round(box["y"]), "dy": 1})
            structured(scrolled)
            clicks = structured(await session.call_tool("browser_playwright", {
                "code": "return await page.evaluate('clicks')"}))["result"]
            assert clicks[-1] == {"id": "submit", "trusted": True}, clicks
    finally:
        await sidecar.stop()
