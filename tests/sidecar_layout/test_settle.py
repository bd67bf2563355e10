"""A change's recount (the tracker counts changed nodes again two frames later): the probe says
when one is due, and a read waits for it instead of reading twice."""

from __future__ import annotations

import pytest

from sidecar.layout.probing.probe import PROBE_PARAMS, SETTLE_PARAMS

from .clicking import NEXT_FRAME_JS

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

RENAME_JS = 'document.querySelector("button").textContent = "Renamed %d";'


async def _tracked(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/2000"))
    await chromium.layout()                  # installs the trackers
    await chromium.evaluate(page, NEXT_FRAME_JS)
    await chromium.layout()
    return page


def _reads(chromium) -> int:
    counters = chromium.layout_service.counters
    return counters.patches + counters.captures + counters.rescans


async def test_the_probe_says_a_recount_is_due_and_the_wait_ends_when_it_is_made(chromium, page_server):
    page = await _tracked(chromium, page_server)
    probe, wait = PROBE_PARAMS["expression"], SETTLE_PARAMS["expression"]
    # The change, the probe and the wait's start in one task (the probe after the tracker's
    # mutation callback, a microtask queued first): no animation frame comes between them.
    due, waited, after = await chromium.evaluate(
        page, "(async () => { %s await null; const due = (%s); const waited = await (%s); "
              "return [due, waited, (%s)]; })()" % (RENAME_JS % 0, probe, wait, probe))
    assert due["settling"] is True
    token, changes, _scrolls = due["frames"][0].split(":")
    assert waited == 1                      # one frame's tracker waited for
    assert after["settling"] is False
    assert after["frames"][0].split(":")[:2] == [token, str(int(changes) + 1)]
    # Nothing due: nothing to wait for.
    assert await chromium.evaluate(page, wait) == 0


async def test_a_read_right_after_a_change_reads_the_page_once(chromium, page_server):
    page = await _tracked(chromium, page_server)
    for n in range(3):
        before = _reads(chromium)
        await chromium.evaluate(page, RENAME_JS % n)
        layout = await chromium.layout()
        names = {node["name"]["value"] for node in layout["tabs"][0]["layout"]["nodes"]}
        assert f"Renamed {n}" in names
        # Read before the recount, it would have been read again after it.
        assert _reads(chromium) == before + 1
        await chromium.evaluate(page, NEXT_FRAME_JS)
