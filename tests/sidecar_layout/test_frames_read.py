"""A page with iframes whose top document alone changed: only that document's tree is read again
(the iframes' are taken over), and the answer is the whole read's; what its iframe elements do to
the frames (hidden, aria-hidden) makes it read whole."""

from __future__ import annotations

import pytest

from .clicking import NEXT_FRAME_JS
from .test_incremental import _comparable, _first_difference

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _names(layout: dict) -> set[str]:
    return {n["name"]["value"] for n in layout["tabs"][0]["layout"]["nodes"]}


async def _read_and_compare(chromium, page) -> dict:
    """The tab's layout now, checked node for node against a whole read (?fresh=true)."""
    read = await chromium.layout(tab=page.target_id)
    oracle = await chromium.layout(tab=page.target_id, fresh="true")
    assert _comparable(read) == _comparable(oracle), _first_difference(_comparable(read),
                                                                       _comparable(oracle))
    return read


async def test_a_top_document_change_reads_its_tree_only_and_equals_the_whole_read(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    counters = chromium.layout_service.counters
    await chromium.layout(tab=page.target_id)            # installs the change trackers
    await chromium.evaluate(page, NEXT_FRAME_JS)
    await chromium.layout(tab=page.target_id)
    for n in range(2):
        before = counters.frames
        await chromium.evaluate(page, f'document.getElementById("b-top").textContent = "Renamed {n}"')
        assert f"Renamed {n}" in _names(await _read_and_compare(chromium, page))
        assert counters.frames == before + 1
        await chromium.evaluate(page, NEXT_FRAME_JS)

    # The top document's change hides a frame's content from the accessibility tree: read whole.
    for change in ('document.getElementById("same").setAttribute("aria-hidden", "true")',
                   'document.getElementById("cross").style.visibility = "hidden"',
                   'document.getElementById("same").removeAttribute("aria-hidden")'):
        before = counters.frames
        await chromium.evaluate(page, change)
        await _read_and_compare(chromium, page)
        assert counters.frames == before, change
        await chromium.evaluate(page, NEXT_FRAME_JS)

    # A change inside a frame is not the top document's: read whole too.
    before = counters.frames
    same = next(f for f in (await page.send("Page.getFrameTree"))["frameTree"]["childFrames"]
                if "name=same" in f["frame"]["url"])["frame"]["id"]
    world = await page.send("Page.createIsolatedWorld", {"frameId": same})
    await page.send("Runtime.evaluate", {"expression": 'document.body.append("Frame text")',
                                         "contextId": world["executionContextId"]})
    assert "Frame text" in _names(await _read_and_compare(chromium, page))
    assert counters.frames == before
