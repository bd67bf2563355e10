"""/layout keeps the original system's contract (its layout_schema.jsonc) while adding ours: real
answers satisfy both schemas; CDP's shapes under CDP's names; keys left out, not null; the
switches for what the original implementation did (bounds relative to the viewport, the tab in
front first, inline text boxes) proved by clicking through desktopd."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.layout import LayoutOptions

from .clicking import NEXT_FRAME_JS, WAIT_FOR_CLICK_JS, element_id
from .reference_schema import validate_reference
from .schema import validate_layout

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

SCROLL_Y = 1080          # the example: a button at document y=1930 shows at y=850


async def _scrolled_compat_page(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("compat.html"))
    await chromium.evaluate(page, f"scrollTo(0, {SCROLL_Y})")
    await chromium.evaluate(page, NEXT_FRAME_JS)
    return page


def _nodes(body: dict) -> list[dict]:
    return list(body["tabs"][0]["layout"]["nodes"])


def _named(nodes: list[dict], role: str, name: str) -> dict:
    found = [n for n in nodes if n["role"]["value"] == role and n["name"]["value"] == name]
    assert len(found) == 1, f"{len(found)} {role} nodes named {name!r}"
    return found[0]


@pytest.mark.parametrize("query", [{}, {"fresh": "true"}, {"bounds": "viewport"}, {"bounds": "screen"},
                                   {"interesting": "true"}, {"inline_text_boxes": "true"},
                                   {"order": "strip"}, {"max_nodes": "5"}],
                         ids=lambda q: ",".join(f"{k}={v}" for k, v in q.items()) or "default")
async def test_real_answers_satisfy_our_schema_and_the_originals(chromium, page_server, query):
    await _scrolled_compat_page(chromium, page_server)
    body = await chromium.layout(**query)
    validate_layout(body)
    validate_reference(body)


async def test_frames_satisfy_both_schemas(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    body = await chromium.layout()
    validate_layout(body)
    validate_reference(body)


async def test_cdp_shapes_under_cdp_names_and_absent_keys_left_out(chromium, page_server):
    await _scrolled_compat_page(chromium, page_server)
    layout = (await chromium.layout())["tabs"][0]["layout"]
    nodes = list(layout["nodes"])
    root = nodes[0]
    assert "parentId" not in root and all("parentId" in n for n in nodes[1:])
    # An unrendered node has no "bounds" key; none is ever null (the seed's `"bounds" in node`).
    assert all(n.get("bounds", {}) is not None for n in nodes)
    assert any("bounds" not in n for n in nodes) or all(n["screen"] is not None for n in nodes)
    field = _named(nodes, "textbox", "Query")
    assert field["value"] == {"type": "string", "value": "abc"} and field["valueText"] == "abc"
    assert field["description"]["value"] == "Search the site"
    assert field["descriptionText"] == "Search the site" and "sources" not in field["description"]
    button = _named(nodes, "button", "Four")
    assert "value" not in button and "description" not in button and button["valueText"] is None
    # States are readable from CDP's properties list, as a client of the original reads them.
    check = _named(nodes, "checkbox", "Agree")
    properties = {p["name"]: p["value"] for p in check["properties"]}
    assert properties["checked"]["value"] == "true" and properties["focusable"]["value"] is True
    assert check["states"]["checked"] is True and check["states"]["focusable"] is True
    # The original's viewport names beside CDP's: scroll offset and visible size, CSS px.
    visual = layout["viewport"]["visualViewport"]
    assert visual["y"] == visual["pageY"] == pytest.approx(SCROLL_Y)
    assert (visual["width"], visual["height"]) == (visual["clientWidth"], visual["clientHeight"])
    assert visual["scale"] == 1
    layout_viewport = layout["viewport"]["layoutViewport"]
    assert layout_viewport["y"] == pytest.approx(SCROLL_Y) and layout_viewport["width"] > 0


async def test_bounds_in_viewport_and_screen_space(chromium, page_server):
    await _scrolled_compat_page(chromium, page_server)
    spaces = {space: (await chromium.layout(bounds=space))["tabs"][0]["layout"]
              for space in ("document", "viewport", "screen")}
    for space, layout in spaces.items():
        assert layout["boundsSpace"] == space
    four = {space: _named(list(layout["nodes"]), "button", "Four") for space, layout in spaces.items()}
    document, viewport, screen = four["document"]["bounds"], four["viewport"]["bounds"], four["screen"]["bounds"]
    assert document["borderBox"]["y"] == pytest.approx(1930, abs=1)
    # viewport: what the original's DOM.getBoxModel gave on this scrolled page.
    assert viewport["space"] == "viewport" and viewport["borderBox"]["y"] == pytest.approx(850, abs=1)
    assert viewport["y"] - viewport["borderBox"]["y"] == pytest.approx(document["y"] - document["borderBox"]["y"])
    assert viewport["borderBox"] == four["document"]["viewport"]["borderBox"]
    # screen: the numbers of the node's own screen box.
    assert screen["space"] == "screen" and screen["borderBox"] == four["document"]["screen"]["borderBox"]
    # Only "bounds" moves: the other members are the same in every space.
    same = {k: v for k, v in four["document"].items() if k != "bounds"}
    assert {k: v for k, v in four["viewport"].items() if k != "bounds"} == same
    # The server's default (SIDECAR_BOUNDS_SPACE) when the query does not say.
    defaulted = await chromium.layout_service.build(LayoutOptions.from_query({}, "viewport"))
    assert defaulted["tabs"][0]["layout"]["boundsSpace"] == "viewport"


def _in_view(bounds: dict, viewport: dict) -> bool:
    """A harness written against the original: "on screen" by its viewport-relative bounds."""
    box = bounds["borderBox"]
    visual = viewport["visualViewport"]
    return (box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= visual["width"]
            and box["y"] + box["height"] <= visual["height"])


async def test_a_viewport_space_harness_picks_what_is_on_screen_and_clicks_it(chromium, desktopd, page_server):
    page = await _scrolled_compat_page(chromium, page_server)
    layout = (await chromium.layout(bounds="viewport", roles="button"))["tabs"][0]["layout"]
    viewport = layout["viewport"]
    picked = [n for n in layout["nodes"] if "bounds" in n and _in_view(n["bounds"], viewport)]
    # With document-space bounds it would have picked "Zero" (y=100), scrolled away.
    assert {"Two", "Three"} <= {n["name"]["value"] for n in picked} <= {"Two", "Three", "Four"}
    assert [n["name"]["value"] for n in picked] == \
        [n["name"]["value"] for n in layout["nodes"] if n["fullyVisible"]]
    # Its own conversion to the desktop: the viewport's screen origin plus CSS px times the
    # device pixel ratio.
    origin, ratio = viewport["screenOrigin"], viewport["devicePixelRatio"]
    for node in picked:
        box = node["bounds"]["borderBox"]
        x = round(origin["x"] + (box["x"] + box["width"] / 2) * ratio)
        y = round(origin["y"] + (box["y"] + box["height"] / 2) * ratio)
        await _assert_click_hits(chromium, desktopd, page, node, x, y)


async def test_screen_space_bounds_are_where_a_click_hits(chromium, desktopd, page_server):
    page = await _scrolled_compat_page(chromium, page_server)
    layout = (await chromium.layout(bounds="screen", roles="button"))["tabs"][0]["layout"]
    for node in [n for n in layout["nodes"] if n["fullyVisible"]]:
        box = node["bounds"]["borderBox"]
        await _assert_click_hits(chromium, desktopd, page, node, round(box["x"] + box["width"] / 2),
                                 round(box["y"] + box["height"] / 2))


async def _assert_click_hits(chromium, desktopd, page, node: dict, x: int, y: int,
                             want: str | None = None) -> None:
    want = want or await element_id(page, node)
    count = len(await chromium.evaluate(page, "window.__clicks"))
    await desktopd.tap(x, y)
    got = await chromium.evaluate(page, WAIT_FOR_CLICK_JS % count)
    assert got == [want], f"a click at ({x}, {y}) for {node['name']['value']!r} recorded {got}"


async def test_the_tab_in_front_comes_first_unless_strip_order_is_asked(chromium, page_server):
    first = await chromium.page()
    await chromium.navigate(first, page_server.url("compat.html"))
    created = await chromium.conn.send("Target.createTarget", {"url": page_server.url("boxes.html")})
    second = created["targetId"]
    try:
        await chromium.tracker.wait_for(lambda: len(chromium.tracker.pages()) == 2, 20)
        assert [p.target_id for p in chromium.tracker.pages()] == [first.target_id, second]
        front = []
        for _ in range(100):                 # the new tab comes to the front as it loads: bounded
            front = [t["id"] for t in (await chromium.layout())["tabs"]]
            if front[0] == second:
                break
            await asyncio.sleep(0.05)
        assert front == [second, first.target_id]
        strip = [t["id"] for t in (await chromium.layout(order="strip"))["tabs"]]
        assert strip == [first.target_id, second]
        await chromium.conn.send("Target.activateTarget", {"targetId": first.target_id})
        for _ in range(100):
            front = [t["id"] for t in (await chromium.layout())["tabs"]]
            if front[0] == first.target_id:
                break
            await asyncio.sleep(0.05)
        assert front == [first.target_id, second]
        tabs = (await chromium.layout())["tabs"]
        assert tabs[0]["visible"] is True and tabs[1]["visible"] is False
        defaulted = await chromium.layout_service.build(LayoutOptions.from_query({}, order="strip"))
        assert [t["id"] for t in defaulted["tabs"]] == [first.target_id, second]
    finally:
        await chromium.conn.send("Target.closeTarget", {"targetId": second})


async def test_inline_text_boxes_are_each_line_of_a_wrapped_link_and_a_click_on_each_hits(
        chromium, desktopd, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("compat.html"))
    await chromium.evaluate(page, "scrollTo(0, 900)")
    await chromium.evaluate(page, NEXT_FRAME_JS)
    plain = _nodes(await chromium.layout())
    assert not any(n["role"]["value"] == "InlineTextBox" for n in plain)
    nodes = _nodes(await chromium.layout(inline_text_boxes="true"))
    by_id = {n["nodeId"]: n for n in nodes}
    link = _named(nodes, "link", "a link whose words wrap over two lines")
    [text] = [by_id[c] for c in link["childIds"] if by_id[c]["role"]["value"] == "StaticText"]
    lines = [by_id[c] for c in text["childIds"]]
    assert len(lines) >= 2 and all(n["role"]["value"] == "InlineTextBox" for n in lines)
    assert all(n["parentId"] == text["nodeId"] and n["fullyVisible"] for n in lines)
    # Line boxes, one below the other, each inside the link's box.
    tops = [n["bounds"]["borderBox"]["y"] for n in lines]
    assert tops == sorted(tops) and tops[-1] - tops[0] >= 20
    outer = link["bounds"]["borderBox"]
    for line in lines:
        box = line["bounds"]["borderBox"]
        assert outer["x"] - 1 <= box["x"] and box["x"] + box["width"] <= outer["x"] + outer["width"] + 1
    # The link's union box centre lies between the lines; each line's centre is on the link.
    for line in lines:
        center = line["screen"]["center"]
        await _assert_click_hits(chromium, desktopd, page, line, center["x"], center["y"], "wrapped")
