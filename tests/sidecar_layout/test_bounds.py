"""/layout bounds agree with the page's own getBoundingClientRect(), and a cached layout is never
stale: DOM mutations, scrolling (page, inner scroller, iframe) and resizing all show up."""

from __future__ import annotations

import pytest

from .clicking import NEXT_FRAME_JS, buttons_of, element_id

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

# Every button's rectangle relative to the top-level viewport, walking same-origin iframes.
RECTS_JS = """
(() => {
  const out = {};
  const walk = (w, dx, dy) => {
    const buttons = [...w.document.querySelectorAll("button")];
    for (const host of w.document.querySelectorAll("*"))
      if (host.shadowRoot) buttons.push(...host.shadowRoot.querySelectorAll("button"));
    for (const b of buttons) {
      const r = b.getBoundingClientRect();
      out[b.id] = [r.x + dx, r.y + dy, r.width, r.height];
    }
    for (const f of w.document.querySelectorAll("iframe")) {
      const r = f.getBoundingClientRect(), cs = w.getComputedStyle(f);
      const x = dx + r.x + f.clientLeft + parseFloat(cs.paddingLeft);
      const y = dy + r.y + f.clientTop + parseFloat(cs.paddingTop);
      let inner = null;
      try { inner = f.contentWindow.document && f.contentWindow; } catch (e) { inner = null; }
      if (inner) walk(inner, x, y); else out["@" + f.id] = [x, y];
    }
  };
  walk(window, 0, 0);
  return out;
})()
"""
CHILD_RECTS_JS = """
Object.fromEntries([...document.querySelectorAll("button")].map((b) => {
  const r = b.getBoundingClientRect(); return [b.id, [r.x, r.y, r.width, r.height]]; }))
"""


async def page_rects(chromium, page) -> dict[str, list[float]]:
    rects = await chromium.evaluate(page, RECTS_JS)
    for child in page.children.values():
        reply = await child.send("Runtime.evaluate", {"expression": CHILD_RECTS_JS, "returnByValue": True})
        origin = rects.pop("@cross")
        for key, (x, y, w, h) in reply["result"]["value"].items():
            rects[key] = [x + origin[0], y + origin[1], w, h]
    return rects


async def boxes_by_id(chromium, page, layout) -> dict[str, dict]:
    return {await element_id(page, node): node for node in buttons_of(layout)}


def assert_matches(nodes: dict[str, dict], rects: dict[str, list[float]], space: str = "viewport") -> None:
    assert set(nodes) == {k for k in rects if not k.startswith("@")}
    for key, node in nodes.items():
        box = node[space]["borderBox"]
        got = [box["x"], box["y"], box["width"], box["height"]]
        assert got == pytest.approx(rects[key], abs=1.0), f"{key}: layout {got} vs page {rects[key]}"


async def test_bounds_match_get_bounding_client_rect_when_scrolled(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    await chromium.evaluate(page, "scrollTo(90, 230)")
    await chromium.evaluate(page, NEXT_FRAME_JS)
    layout = await chromium.layout(roles="button")
    assert layout["tabs"][0]["layout"]["viewport"]["visualViewport"]["pageY"] == 230
    nodes = await boxes_by_id(chromium, page, layout)
    assert_matches(nodes, await page_rects(chromium, page))
    # document = viewport + scroll, for everything but the fixed bar's button (which moves).
    top = nodes["b-top"]
    assert top["bounds"]["borderBox"]["y"] == pytest.approx(top["viewport"]["borderBox"]["y"] + 230)


async def test_a_cached_layout_is_never_stale(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    first = await boxes_by_id(chromium, page, await chromium.layout(roles="button"))
    again = await boxes_by_id(chromium, page, await chromium.layout(roles="button"))
    assert again == first

    async def check(step: str, *, next_frame: bool = True) -> dict[str, dict]:
        if next_frame:
            await chromium.evaluate(page, NEXT_FRAME_JS)
        nodes = await boxes_by_id(chromium, page, await chromium.layout(roles="button"))
        rects = await page_rects(chromium, page)
        try:
            assert_matches(nodes, rects)
        except AssertionError as exc:
            raise AssertionError(f"after {step}: {exc}") from None
        return nodes

    await chromium.evaluate(page, "document.getElementById('b-top').style.left = '333px'")
    moved = await check("moving a button")
    assert moved["b-top"]["bounds"]["borderBox"]["x"] == pytest.approx(333, abs=0.5)

    field = "document.getElementById('field')"
    await chromium.evaluate(page, f"{field}.value = 'set by script'")   # no event, no mutation
    fields = [n for n in (await chromium.layout(roles="textbox"))["tabs"][0]["layout"]["nodes"]]
    assert [n["valueText"] for n in fields] == ["set by script"]
    assert [n["value"] for n in fields] == [{"type": "string", "value": "set by script"}]

    await chromium.evaluate(page, "scrollTo(0, 400)")
    scrolled = await check("scrolling the page")
    assert scrolled["b-far"]["bounds"] == moved["b-far"]["bounds"]           # document space
    assert scrolled["b-fixed"]["viewport"] == moved["b-fixed"]["viewport"]   # fixed stays put

    await chromium.evaluate(page, "document.getElementById('scroller').scrollTop = 100")
    await check("scrolling an inner scroller")
    # Asked before the scroll event fires (the same frame): still fresh.
    await chromium.evaluate(page, "document.getElementById('scroller').scrollTop = 40")
    await check("scrolling an inner scroller, asked at once", next_frame=False)
    await chromium.evaluate(page, "document.getElementById('b-inner').scrollIntoView()")
    await check("scrollIntoView, asked at once", next_frame=False)

    await chromium.evaluate(page, "document.getElementById('same').contentWindow.scrollTo(0, 40)")
    await check("scrolling a same-origin iframe")

    await chromium.evaluate(page, "document.getElementById('same').contentDocument"
                                  ".getElementById('same-f-one').style.marginLeft = '70px'")
    await check("a mutation inside a same-origin iframe")

    child = next(iter(page.children.values()))
    await child.send("Runtime.evaluate", {"expression": "document.body.style.paddingTop = '25px'"})
    await check("a mutation inside an out-of-process iframe")

    window = await chromium.conn.send("Browser.getWindowForTarget", {"targetId": page.target_id})
    await chromium.conn.send("Browser.setWindowBounds", {"windowId": window["windowId"],
                                                         "bounds": {"width": 900, "height": 650}})
    await chromium.evaluate(page, "new Promise((r) => innerWidth < 1000 ? r() : addEventListener('resize', r, {once: true}))")
    resized = await check("resizing the window")
    assert resized["b-fixed"]["viewport"] != scrolled["b-fixed"]["viewport"]
