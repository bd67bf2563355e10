"""A hidden page of the running browser whose every request is answered with an empty document,
so a script can run at any origin (its localStorage) without a visible tab and without touching
the network: what Playwright does to read and write storage state, here over plain CDP.

Hidden targets (Chromium 127+) are of type "other": no tab strip entry, not one of GET /tabs."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from ..cdp.connection import CDPConnection, CDPError, EventStream
from ..cdp.targets import HiddenPage, TargetTracker

EMPTY_DOCUMENT = "PCFkb2N0eXBlIGh0bWw+"      # base64 of "<!doctype html>"


class ScratchFailed(CDPError):
    """The scratch page could not be opened at an origin."""


@dataclass(frozen=True)
class ScratchPage:
    tracker: TargetTracker
    page: HiddenPage
    timeout: float

    async def evaluate_at(self, origin: str, expression: str) -> object:
        """``expression``'s JSON value in an empty document of ``origin``."""
        reply = await self.tracker.navigate(self.page, origin + "/", self.timeout)
        if reply.get("errorText"):
            raise ScratchFailed(f"cannot open an empty page of {origin}: {reply['errorText']}",
                                method="Page.navigate")
        # Page.navigate answers at the commit: ask the committed document, and check it is it.
        checked = f"location.origin === {json.dumps(origin)} ? [true, ({expression})] : [false, null]"
        for _attempt in range(20):
            result = await self.page.send("Runtime.evaluate", {"expression": checked, "returnByValue": True,
                                                               "awaitPromise": True}, timeout=self.timeout)
            if "exceptionDetails" in result:
                raise ScratchFailed(f"the script failed at {origin}", method="Runtime.evaluate")
            here, value = result.get("result", {}).get("value") or (False, None)
            if here:
                return value
            await asyncio.sleep(0.05)   # the previous document still answered: ask the new one
        raise ScratchFailed(f"the empty page of {origin} did not become current", method="Runtime.evaluate")


async def _answer_requests(page: HiddenPage, paused: EventStream) -> None:
    while True:
        _method, params, _session = await paused.get()
        try:
            await page.send("Fetch.fulfillRequest", {
                "requestId": params["requestId"], "responseCode": 200, "body": EMPTY_DOCUMENT,
                "responseHeaders": [{"name": "Content-Type", "value": "text/html"}]})
        except CDPError:
            pass                  # the navigation was replaced meanwhile


@contextlib.asynccontextmanager
async def scratch_page(conn: CDPConnection, tracker: TargetTracker, timeout: float) -> AsyncIterator[ScratchPage]:
    """A hidden page in the episode's browser context (the tracker opens and closes it)."""
    async with tracker.hidden_page(timeout) as page:
        paused = conn.events("Fetch.requestPaused", session_id=page.session_id)
        answering = asyncio.get_running_loop().create_task(_answer_requests(page, paused))
        try:
            await page.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, timeout=timeout)
            yield ScratchPage(tracker, page, timeout)
        finally:
            answering.cancel()
            paused.close()
