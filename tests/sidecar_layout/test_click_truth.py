"""Click at what /layout says, through desktopd, on the conditions real pages have: a scroll
box (only the rows really visible are fullyVisible, and each of those is hit), links broken
over two lines (the click point is on a line, the box centre is not), covered nodes (a sticky
header, a checkbox under its label: hittable false, or the click reaches the label's control),
and device scale factor 2 with the sidecar's default window (every click point on screen)."""

from __future__ import annotations

import pytest

from sidecar.layout import LayoutOptions
from sidecar.browser.window_geometry import default_window_size

from .clicking import NEXT_FRAME_JS
from .harness import launch_chromium, start_desktopd
from .schema import validate_layout

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

WAIT_JS = """
new Promise((resolve) => {
  let frames = 0; const seen = %d;
  (function check() {
    if (window.__clicks.length > seen || ++frames > 120) resolve(window.__clicks.slice(seen));
    else requestAnimationFrame(check);
  })();
})
"""


def _nodes(body: dict) -> list[dict]:
    return body["tabs"][0]["layout"]["nodes"]


async def _element_id(page, node: dict) -> str:
    reply = await page.send("DOM.describeNode", {"backendNodeId": node["backendDOMNodeId"]})
    attributes = reply["node"].get("attributes", [])
    return dict(zip(attributes[::2], attributes[1::2])).get("id", "")


async def _click(chromium, desktopd, page, point: dict) -> list[str]:
    count = len(await chromium.evaluate(page, "window.__clicks"))
    await desktopd.tap(point["x"], point["y"])
    return await chromium.evaluate(page, WAIT_JS % count)


async def _click_proof(chromium, desktopd, page, nodes: list[dict]) -> tuple[int, int]:
    """Clicks each node at its click point; returns (hits, misses) and asserts no miss."""
    hits = misses = 0
    for node in nodes:
        want = await _element_id(page, node)
        got = await _click(chromium, desktopd, page, node["screen"]["clickPoint"])
        if got == [want]:
            hits += 1
        else:
            misses += 1
        assert got == [want], (node["name"]["value"], node["screen"], got)
    return hits, misses


async def _open(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("truth.html"))
    return page


async def test_only_the_rows_visible_in_a_scroll_box_are_fully_visible_and_each_is_hit(
        chromium, desktopd, page_server):
    page = await _open(chromium, page_server)
    for scroll in (0, 95, 250):
        await chromium.evaluate(page, f"document.getElementById('scroller').scrollTop = {scroll}")
        await chromium.evaluate(page, NEXT_FRAME_JS)
        body = await chromium.layout(roles="button")
        validate_layout(body)
        rows = [n for n in _nodes(body) if n["name"]["value"].startswith("Row ")]
        assert len(rows) == 15
        shown = [n for n in rows if n["fullyVisible"]]
        assert 2 <= len(shown) <= 4, [n["name"]["value"] for n in shown]
        assert all(n["hittable"] for n in shown)
        # What the page itself says is inside the box, and what /layout says: the same rows.
        inside = await chromium.evaluate(page, """(() => { const box = document.getElementById('scroller')
            .getBoundingClientRect(); return [...document.querySelectorAll('#scroller button')].filter((b) => {
            const r = b.getBoundingClientRect(); return r.top >= box.top && r.bottom <= box.bottom; })
            .map((b) => b.textContent); })()""")
        assert sorted(n["name"]["value"] for n in shown) == sorted(inside)
        hits, misses = await _click_proof(chromium, desktopd, page, shown)
        assert (hits, misses) == (len(shown), 0)


async def test_links_broken_over_two_lines_are_clicked_on_a_line(chromium, desktopd, page_server):
    page = await _open(chromium, page_server)
    body = await chromium.layout(roles="link")
    links = [n for n in _nodes(body) if n["fullyVisible"]]
    assert len(links) == 2
    # Each link is broken over exactly two lines (the page's own view of it).
    assert await chromium.evaluate(page, "[...document.querySelectorAll('a')].map((a) => "
                                   "new Set([...a.getClientRects()].map((r) => Math.round(r.y))).size)") == [2, 2]
    for link in links:
        # The box centre is between the lines: on the paragraph, not the link.
        assert link["screen"]["center"] != link["screen"]["clickPoint"]
        centre_hit = await _click(chromium, desktopd, page, link["screen"]["center"])
        assert centre_hit != [await _element_id(page, link)]
    assert await _click_proof(chromium, desktopd, page, links) == (2, 0)


async def test_covered_nodes_are_not_hittable(chromium, desktopd, page_server):
    page = await _open(chromium, page_server)
    # "Below the header" scrolled to just under the sticky header's top edge: inside the
    # viewport (fullyVisible), but the header is painted over it.
    await chromium.evaluate(page, """window.scrollTo(0, document.getElementById('b-below')
        .getBoundingClientRect().top + scrollY - 20)""")
    await chromium.evaluate(page, NEXT_FRAME_JS)
    body = await chromium.layout()
    validate_layout(body)
    nodes = {n["name"]["value"]: n for n in _nodes(body) if n["role"]["value"] in ("button", "checkbox")}
    below = nodes["Below the header"]
    assert below["fullyVisible"] and below["hittable"] is False
    # A click there reaches the header, not the button.
    assert await _click(chromium, desktopd, page, below["screen"]["clickPoint"]) != ["b-below"]
    # Every node /layout calls fully visible and hittable is hit.
    clickable = [n for n in nodes.values() if n["fullyVisible"] and n["hittable"]]
    assert clickable
    assert await _click_proof(chromium, desktopd, page, clickable) == (len(clickable), 0)


async def test_an_answer_without_hit_tests_is_never_served_to_layout(chromium, desktopd, page_server):
    """In-process readers may skip the hit tests (the agent's snapshot): /layout, asked next about
    the same capture, still hit-tests."""
    page = await _open(chromium, page_server)
    await chromium.evaluate(page, """window.scrollTo(0, document.getElementById('b-below')
        .getBoundingClientRect().top + scrollY - 20)""")
    await chromium.evaluate(page, NEXT_FRAME_JS)

    def below(body: dict) -> dict:
        return next(n for n in _nodes(body) if n["name"]["value"] == "Below the header")

    for _ in range(2):          # the second time, both answers come from the kept capture
        quick = await chromium.layout_service.build(LayoutOptions(hit_tests=False))
        assert below(quick)["fullyVisible"] and below(quick)["hittable"] is None
        assert below(await chromium.layout())["hittable"] is False


async def test_a_checkbox_under_its_label_is_not_hittable(chromium, desktopd, page_server):
    page = await _open(chromium, page_server)
    body = await chromium.layout(roles="checkbox")
    box = _nodes(body)[0]
    assert box["fullyVisible"] and box["hittable"] is False
    # The label is on top: a click there reaches the label, which toggles the box.
    await _click(chromium, desktopd, page, box["screen"]["clickPoint"])
    assert await chromium.evaluate(page, "document.getElementById('cb').checked") is True


async def test_device_scale_2_default_window_puts_every_click_point_on_screen(
        xvfb, need_browser, page_server):
    width, height = 1280, 800            # the test display
    size = default_window_size((width, height), ("--force-device-scale-factor=2",))
    assert size == (640, 400)
    browser = await launch_chromium(xvfb.display, extra=("--force-device-scale-factor=2",),
                                    position=(0, 0), size=size)
    service = await start_desktopd(xvfb.display)
    try:
        page = await browser.page()
        await browser.navigate(page, page_server.url("truth.html"))
        body = await browser.layout()
        validate_layout(body)
        assert body["tabs"][0]["layout"]["viewport"]["deviceScaleFactor"] == pytest.approx(2.0)
        shown = [n for n in _nodes(body) if n["fullyVisible"]]
        assert shown
        for node in shown:
            point = node["screen"]["clickPoint"]
            assert 0 <= point["x"] < width and 0 <= point["y"] < height, node["screen"]
        clickable = [n for n in shown if n["hittable"] and n["role"]["value"] in ("button", "link")]
        assert clickable
        assert await _click_proof(browser, service, page, clickable) == (len(clickable), 0)
    finally:
        await service.close()
        await browser.close()
