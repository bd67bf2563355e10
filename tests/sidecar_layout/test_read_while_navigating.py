"""Reads of a page that changes and at once navigates away (a form's submit after its last edit):
every read is answered (or refused as "read again"), no browser call is left unanswered, and the renderer never crashes.

Chromium answers Accessibility.queryAXTree only at the document's next accessibility update; when
the navigation commits first, the call is never answered (the read waited out its budget) and the
renderer later crashed on a navigation. The patch reads subtrees with calls answered at once."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.cdp.connection import CDPTimeout
from sidecar.errors import LayoutUnavailable, PageChanging

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

ROUNDS = 40
# A change (patched by the next read), then the navigation a few milliseconds later, so that it
# commits while the reads of the change are in flight.
CHANGE_THEN_LEAVE = ("document.querySelector('button').textContent = 'leaving %d';"
                     "setTimeout(() => location.href = %r, %d); 0")


async def test_reads_while_the_page_navigates_away_are_answered_and_crash_nothing(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/200?n=0"))
    async with chromium.conn.events("Target.targetCrashed", "Inspector.targetCrashed") as crashes:
        for n in range(1, ROUNDS + 1):
            await chromium.layout(tab=page.target_id)          # the capture the patch starts from
            await chromium.evaluate(page, CHANGE_THEN_LEAVE % (n, page_server.url(f"/gen/200?n={n}"), n % 5))
            for _attempt in range(50):                         # bounded: until the new document
                try:
                    tab = (await chromium.layout(tab=page.target_id))["tabs"][0]
                except (LayoutUnavailable, PageChanging):
                    continue           # "read again": Chromium refused a call as the page left
                assert "error" not in tab, (n, tab.get("error"))
                names = [str((node.get("name") or {}).get("value", "")) for node in tab["layout"]["nodes"]]
                # The new document, parsed as far as its first button (the next round changes
                # it): a read while it is still being parsed may have no button yet.
                if (tab["url"].endswith(f"?n={n}") and not any("leaving" in name for name in names)
                        and any(name.startswith("Button ") for name in names)):
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError(f"round {n}: the new document was never read")
        # Whatever was sent is answered (the last checks at once; none waits for a document
        # that is gone, as an unanswered call would until its timeout).
        for _ in range(100):
            if chromium.conn.stats()["pending"] == 0:
                break
            await asyncio.sleep(0.02)
        assert chromium.conn.stats()["pending"] == 0
        with pytest.raises(CDPTimeout):                     # no crash event came
            crashed = await crashes.get(timeout=0.5)
            raise AssertionError(f"the renderer crashed: {crashed}")
    assert not page.crashed
