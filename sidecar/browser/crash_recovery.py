"""Tabs whose renderer crashed are reloaded, a bounded number of times, and counted.

The tracker marks a tab crashed (Target.targetCrashed) and unmarks it when a new document
replaces the dead one; /tabs, /layout and /health report the mark meanwhile. This component
reloads such a tab (Page.navigate to its URL, which the browser process handles, so it revives a
dead renderer) after a short pause, at most ``max_reloads`` times within ``window_s`` per tab: a
page that crashes its renderer on every load stays crashed, and health says so, instead of
crashing forever. One per CDP connection, owned by the supervisor beside its tracker."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field

from ..cdp.connection import CDPConnection, CDPError
from ..cdp.targets import TargetTracker

log = logging.getLogger(__name__)


@dataclass
class RecoveryCounts:
    crashes: int = 0        # crashes seen
    reloads: int = 0        # reloads that brought a new document
    failed: int = 0         # reloads that failed or found the tab still crashed
    gave_up: set[str] = field(default_factory=set)   # tabs over their budget, left crashed


class CrashRecovery:
    def __init__(self, conn: CDPConnection, tracker: TargetTracker, *, enabled: bool = True,
                 delay_s: float = 0.5, max_reloads: int = 3, window_s: float = 60.0,
                 call_timeout: float = 10.0) -> None:
        self.conn, self.tracker = conn, tracker
        self.enabled = enabled
        self.delay_s, self.max_reloads, self.window_s, self.call_timeout = delay_s, max_reloads, window_s, call_timeout
        self.counts = RecoveryCounts()
        self._recent: dict[str, deque[float]] = {}
        self._tasks: set[asyncio.Task] = set()

    def start(self) -> None:
        self.conn.on("Target.targetCrashed", self._on_crashed)

    def stop(self) -> None:
        self.conn.off("Target.targetCrashed", self._on_crashed)
        for task in list(self._tasks):
            task.cancel()

    def crashed_tabs(self) -> list[str]:
        return [page.target_id for page in self.tracker.pages() if page.crashed]

    def _on_crashed(self, params: dict, _session: str | None) -> None:
        target_id = params.get("targetId", "")
        if self.tracker.find_page(target_id) is None:
            return   # an iframe's or a worker's renderer: its tab reports it when it matters
        self.counts.crashes += 1
        log.warning("tab %s: renderer crashed (status %s, code %s)", target_id,
                    params.get("status"), params.get("errorCode"))
        if not self.enabled:
            return
        recent = self._recent.setdefault(target_id, deque())
        now = time.monotonic()
        while recent and now - recent[0] > self.window_s:
            recent.popleft()
        if len(recent) >= self.max_reloads:
            self.counts.gave_up.add(target_id)
            log.error("tab %s crashed %d times within %.0f s: left crashed", target_id, len(recent) + 1,
                      self.window_s)
            return
        recent.append(now)
        task = asyncio.get_running_loop().create_task(self._reload(target_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reload(self, target_id: str) -> None:
        await asyncio.sleep(self.delay_s)
        page = self.tracker.find_page(target_id)
        if page is None or not page.crashed:
            return   # closed, or revived by someone else meanwhile
        try:
            await self.tracker.revive(page, self.call_timeout)
        except CDPError as error:
            self.counts.failed += 1
            log.warning("tab %s: reload after the crash failed: %s", target_id, error)
            return
        self.counts.reloads += 1
        self.counts.gave_up.discard(target_id)
        log.info("tab %s: reloaded after its renderer crashed", target_id)

