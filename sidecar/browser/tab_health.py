"""Which tabs stopped answering, so one stuck tab never slows the others.

A tab's renderer can stop answering CDP for long stretches: a script in an endless loop. (A
navigation that has not committed holds the tab's messages too, but it is known from the browser's
events and answered for from the previous document: PageTarget.pending_navigation, never marked
here.) A request that found a tab unresponsive marks it here; later requests
answer for that tab at once ("tab_unresponsive") instead of waiting out its budget again, and a
background ping clears the mark as soon as the renderer answers. One per CDP connection, owned by
the supervisor beside its tracker."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from ..cdp.connection import CDPError, CDPSessionClosed
from ..cdp.protocol.cdp_send import SessionCommands
from ..cdp.protocol.cdp_commands import RuntimeEvaluateParams

log = logging.getLogger(__name__)

PING: RuntimeEvaluateParams = {"expression": "0", "returnByValue": True}


class Pingable(SessionCommands, Protocol):
    @property
    def target_id(self) -> str: ...


class TabHealth:
    """budget_s: how long a request waits for one tab before it reports it unresponsive."""

    def __init__(self, budget_s: float = 5.0, ping_interval_s: float = 0.5) -> None:
        self.budget_s = budget_s
        self.ping_interval_s = ping_interval_s
        self._since: dict[str, float] = {}
        self._pings: dict[str, asyncio.Task] = {}
        self.marked = 0          # times a tab was found unresponsive
        self.recovered = 0       # times one answered again

    def unresponsive(self, target_id: str) -> bool:
        return target_id in self._since

    def unresponsive_for(self, target_id: str) -> float | None:
        since = self._since.get(target_id)
        return None if since is None else time.monotonic() - since

    def unresponsive_tabs(self) -> list[str]:
        return list(self._since)

    def mark(self, page: Pingable) -> None:
        """``page`` did not answer in time: answered for at once from now on, until its ping does."""
        if page.target_id in self._since:
            return
        self._since[page.target_id] = time.monotonic()
        self.marked += 1
        log.warning("tab %s does not answer: reported unresponsive until it does", page.target_id)
        self._pings[page.target_id] = asyncio.get_running_loop().create_task(self._ping_until_answered(page))

    def forget(self, target_id: str) -> None:
        """The tab is gone (closed, or Chromium restarted)."""
        self._since.pop(target_id, None)
        task = self._pings.pop(target_id, None)
        if task is not None:
            task.cancel()

    def stop(self) -> None:
        for target_id in list(self._pings):
            self.forget(target_id)

    async def _ping_until_answered(self, page: Pingable) -> None:
        while True:
            try:
                await page.send("Runtime.evaluate", PING, timeout=self.budget_s)
            except CDPSessionClosed:
                break       # the tab went away: nothing to wait for
            except CDPError:
                await asyncio.sleep(self.ping_interval_s)
                continue
            self.recovered += 1
            log.info("tab %s answers again", page.target_id)
            break
        self._since.pop(page.target_id, None)
        self._pings.pop(page.target_id, None)
