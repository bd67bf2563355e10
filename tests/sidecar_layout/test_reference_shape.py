"""/layout keeps the reference design's node shapes: role and name as CDP AXValues, bounds with
the CONTENT box as x/y/width/height beside borderBox, and a per-tab "visible"; a consumer written
for the reference (its README loop, with our screen centre) finds and clicks its button."""

from __future__ import annotations

import asyncio

import pytest

from .clicking import NEXT_FRAME_JS, element_id
from .harness import sidecar_and_desktopd

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

BOXED = ("b-plain", "region", "b-submit", "b-huge", "b-zoomed")
# The page's own idea of each element's content box in document space: getBoundingClientRect
# (+ scroll) inset by the computed border widths and padding, which getComputedStyle gives
# unzoomed: times currentCSSZoom (the CSS zoom property of the element and its ancestors).
CONTENT_BOXES_JS = """
Object.fromEntries(%s.map((id) => {
  const e = document.getElementById(id), r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  const zoom = e.currentCSSZoom || 1;
  const px = (name) => (parseFloat(cs.getPropertyValue(name)) || 0) * zoom;
  const left = px("border-left-width") + px("padding-left");
  const right = px("border-right-width") + px("padding-right");
  const top = px("border-top-width") + px("padding-top");
  const bottom = px("border-bottom-width") + px("padding-bottom");
  const x = r.x + scrollX, y = r.y + scrollY;
  return [id, {border: [x, y, r.width, r.height],
               content: [x + left, y + top, Math.max(0, r.width - left - right),
                         Math.max(0, r.height - top - bottom)]}];
}))
"""


def _rect(box: dict) -> list[float]:
    return [box["x"], box["y"], box["width"], box["height"]]


async def _nodes_by_element(page, layout: dict) -> dict[str, dict]:
    found = {}
    for node in layout["tabs"][0]["layout"]["nodes"]:
        if "backendDOMNodeId" in node and node["role"]["value"] in ("button", "region"):
            found[await element_id(page, node)] = node
    return found


async def test_content_box_is_border_box_minus_border_and_padding(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("boxes.html"))
    await chromium.evaluate(page, "scrollTo(0, 150)")     # document space: scrolling changes nothing
    await chromium.evaluate(page, NEXT_FRAME_JS)
    layout = await chromium.layout(roles="button,region")
    nodes = await _nodes_by_element(page, layout)
    expected = await chromium.evaluate(page, CONTENT_BOXES_JS % list(BOXED))
    for element in BOXED:
        bounds = nodes[element]["bounds"]
        assert bounds["space"] == "document"
        assert _rect(bounds["borderBox"]) == pytest.approx(expected[element]["border"], abs=1.0), element
        assert _rect(bounds) == pytest.approx(expected[element]["content"], abs=1.0), element
    # Asymmetric border and padding: the content box really is inset, not a copy of borderBox.
    region = nodes["region"]["bounds"]
    assert region["x"] - region["borderBox"]["x"] == pytest.approx(2 + 17, abs=0.1)
    assert region["y"] - region["borderBox"]["y"] == pytest.approx(1 + 10, abs=0.1)
    assert region["borderBox"]["width"] - region["width"] == pytest.approx(2 + 17 + 4 + 3, abs=0.1)
    # No border or padding: the same rectangle. More padding than size: an empty content box.
    assert _rect(nodes["b-plain"]["bounds"]) == _rect(nodes["b-plain"]["bounds"]["borderBox"])
    assert nodes["b-huge"]["bounds"]["width"] == 0 and nodes["b-huge"]["bounds"]["height"] == 0
    # Inside a zoom:1.5 element, border 2px + padding 6px draw 12 px wide.
    zoomed = nodes["b-zoomed"]["bounds"]
    assert zoomed["x"] - zoomed["borderBox"]["x"] == pytest.approx(12, abs=0.1)


async def test_role_and_name_are_cdp_ax_values_and_filters_read_their_value(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("boxes.html"))
    layout = (await chromium.layout())["tabs"][0]["layout"]
    submit = next(n for n in layout["nodes"] if n["name"]["value"] == "Submit")
    assert submit["role"] == {"type": "role", "value": "button"}
    assert submit["name"] == {"type": "computedString", "value": "Submit"}
    root = layout["nodes"][0]
    assert root["role"] == {"type": "internalRole", "value": "RootWebArea"}
    assert root["name"]["value"] == "boxes"
    buttons = (await chromium.layout(roles="BUTTON", interesting="true"))["tabs"][0]["layout"]["nodes"]
    assert sorted(n["name"]["value"] for n in buttons) == ["Huge padding", "Plain", "Submit", "Zoomed"]
    interesting = (await chromium.layout(interesting="true"))["tabs"][0]["layout"]["nodes"]
    assert interesting and all(n["role"]["value"] not in ("generic", "none") for n in interesting)


async def test_tab_visible_follows_the_tab_in_front(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("boxes.html"))
    tabs = (await chromium.layout())["tabs"]
    assert [t["visible"] for t in tabs] == [True]
    created = await chromium.conn.send("Target.createTarget", {"url": page_server.url("boxes.html")})
    try:
        await chromium.tracker.wait_for(lambda: len(chromium.tracker.pages()) == 2, 20)
        want = {page.target_id: False, created["targetId"]: True}
        seen = {}
        for _ in range(100):          # the new tab comes to the front as it loads: bounded wait
            seen = {t["id"]: t["visible"] for t in (await chromium.layout())["tabs"]}
            if seen == want:
                break
            await asyncio.sleep(0.05)
        assert seen == want
    finally:
        await chromium.conn.send("Target.closeTarget", {"targetId": created["targetId"]})


async def test_a_reference_style_consumer_finds_and_clicks_its_button(need_browser, page_server, tmp_path):
    async with sidecar_and_desktopd(tmp_path, page_server.url("boxes.html")) as (sidecar, desktopd, session):
        clicked = None
        for _ in range(100):                  # until the page has loaded: bounded
            status, layout = await sidecar.get(session, "/layout")
            assert status == 200, layout
            clicked = await _reference_loop(layout, desktopd)
            if clicked:
                break
            await asyncio.sleep(0.05)
        assert clicked, "the reference-style loop found no Submit button"
        # The page saw the click on Submit (its title says so).
        assert await sidecar.title_once(session, "clicked b-submit") == "clicked b-submit"


async def _reference_loop(layout: dict, desktopd) -> bool:
    """The reference design's example client, verbatim in what it reads (tabs, layout, nodes,
    role.value, name.value, bounds x/y/width/height), except that it clicks screen.center
    instead of document coordinates minus the scroll. Returns True once it clicked."""
    for tab in layout["tabs"]:
        if not tab["visible"] or "error" in tab["layout"]:
            continue
        for node in tab["layout"].get("nodes", []):
            if node.get("role", {}).get("value") == "button":
                name = node.get("name", {}).get("value", "")
                if "Submit" in name and node.get("bounds"):
                    bounds = node["bounds"]
                    # The reference's content-box centre lies inside our border box.
                    center_x = bounds["x"] + bounds["width"] / 2
                    center_y = bounds["y"] + bounds["height"] / 2
                    border = bounds["borderBox"]
                    assert border["x"] < center_x < border["x"] + border["width"]
                    assert border["y"] < center_y < border["y"] + border["height"]
                    await desktopd.tap(node["screen"]["center"]["x"], node["screen"]["center"]["y"])
                    return True
    return False
