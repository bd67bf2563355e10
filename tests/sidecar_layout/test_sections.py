"""Full reads in sections (sidecar/layout/sections.py): the tree read as a few dozen pipelined
subtrees equals one getFullAXTree (?fresh=true), node for node, on pages of every kind the
tests use; pages the sections cannot cover are read whole, and still right."""

from __future__ import annotations

import pytest

from .test_incremental import _counts, _first_difference, _nodes, _observed
from .test_sections_units import spy_on_whole_ordering

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


async def _full_read(chromium, page, script: str) -> dict:
    """A change that needs a full read, then /layout: asserts it was a full read."""
    layout, moved = await _observed(chromium, page, script)
    assert moved["captures"] == 1, script
    return layout


# Text set in 600 new (hidden) elements: more changed nodes than the page's tracker keeps
# (probe.MAX_DIRTY), so the next read is a full one.
OVERFLOW = """{ const box = document.createElement("div"); box.hidden = true; document.body.append(box);
  for (let i = 0; i < 600; i++) box.append(document.createElement("p"));
  for (const p of box.children) p.textContent = "x"; }"""


@pytest.mark.parametrize("path", ["/mutable.html", "/boxes.html", "/frame.html", "/gen/600"])
async def test_a_page_read_in_sections_equals_a_whole_read(chromium, page_server, path, monkeypatch):
    page = await chromium.page()
    reordered = spy_on_whole_ordering(monkeypatch)
    before = _counts(chromium)
    await chromium.navigate(page, page_server.url(path))
    first = await chromium.layout(tab=page.target_id)          # a new document: a full read
    assert _counts(chromium)["sectioned"] == before["sectioned"] + 1, "not read in sections"
    assert reordered == [], "the sections' blocks were not put together: ordered whole"
    whole = await chromium.layout(tab=page.target_id, fresh="true")
    assert _nodes(first) == _nodes(whole), _first_difference(_nodes(first), _nodes(whole))
    # More changed nodes than the page remembers: read in sections again, still exact.
    again = await _full_read(chromium, page, OVERFLOW)
    assert _counts(chromium)["sectioned"] == before["sectioned"] + 2
    whole = await chromium.layout(tab=page.target_id, fresh="true")
    assert _nodes(again) == _nodes(whole), _first_difference(_nodes(again), _nodes(whole))


async def test_pages_the_sections_cannot_cover_are_read_whole(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/600"))
    await chromium.layout(tab=page.target_id)
    # aria-owns moves accessibility children away from their DOM parents.
    sectioned = _counts(chromium)["sectioned"]
    owned = await _full_read(chromium, page, """{
        const owner = document.createElement("div"); owner.setAttribute("role", "list");
        owner.setAttribute("aria-owns", "g12 g20"); document.body.dataset.owned = "1";
        document.body.prepend(owner); }""")
    assert _counts(chromium)["sectioned"] == sectioned
    whole = await chromium.layout(tab=page.target_id, fresh="true")
    assert _nodes(owned) == _nodes(whole), _first_difference(_nodes(owned), _nodes(whole))
    # Text right in <body>: one section would be all of it, which one getFullAXTree reads as well.
    await chromium.evaluate(page, "document.querySelector('[aria-owns]').remove()")
    await chromium.layout(tab=page.target_id)
    texted = await _full_read(chromium, page, "document.body.append('loose text'); document.body.dataset.t = '1'")
    whole = await chromium.layout(tab=page.target_id, fresh="true")
    assert _nodes(texted) == _nodes(whole), _first_difference(_nodes(texted), _nodes(whole))
    assert [n for n in _nodes(texted) if n["name"]["value"] == "loose text"]
