"""Eager refresh: re-capture a tab in the background as soon as its page reports a change.

The in-page change tracker (probe.py) calls the ``Runtime.addBinding`` function named
``BINDING`` a few milliseconds after a burst of changes (debounced in the page). The binding
arrives here as ``Runtime.bindingCalled`` on the tab's (or its OOPIF's) session, and the tab's
layout is rebuilt at once with the query options it was last asked with, so that an agent's
next ``/layout`` (typically a few hundred ms after it acted) is answered from a warm cache.
A new document has no tracker yet: its DOMContentLoaded (``Page.domContentEventFired``) and
its load event (``Page.loadEventFired``) start a refresh too, so "navigate, wait for the load,
look" finds the new page's full read already done, even when images hold the load event back
(what they change by then is patched).

Never stale: a request takes the tab's lock, so it waits for a refresh in flight and then runs
its own freshness check (the probe's change signal) like any other request, capturing again if
the page changed after the refresh started. A page that changes continuously costs at most
about half a core: a rerun waits as long as the previous refresh took. Only tabs asked for in
the last ``ACTIVE_SECONDS`` are refreshed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .options import LayoutOptions
from .probe import BINDING, EARLY_SCRIPT, document_token

log = logging.getLogger(__name__)

ACTIVE_SECONDS = 60.0        # a tab nobody asked about for this long is not refreshed
MAX_PAUSE = 5.0              # longest pause between two refreshes of a busy page

# (page, options, the frame signal the page sent): refreshes the tab unless its cached capture
# already has that signal.
RefreshTab = Callable[[Any, LayoutOptions, str], Awaitable[Any]]


@dataclass
class TabState:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    options: LayoutOptions = LayoutOptions()
    asked_at: float = 0.0              # monotonic time of the last request
    task: asyncio.Task | None = None
    again: bool = False                # a change arrived while a refresh was running
    refreshes: int = 0
    capture: Any = None                # weak reference to the capture last answered from
    documents: Any = None              # that capture's documents (tokens): a new one needs binding
    signal: str = ""                   # the latest signal the page sent with its notification


class EagerRefresher:
    """Per CDP connection: which sessions carry the binding, and each tab's refresh state."""

    def __init__(self, conn: Any, tracker: Any, refresh_tab: RefreshTab) -> None:
        # Weak: the tracker (through its connection) owns this refresher, not the reverse.
        self._tracker = weakref.ref(tracker)
        self._refresh_tab = refresh_tab
        self._bound: set[str] = set()                # session ids that have the binding
        self._early: set[str] = set()                # ... and probe.EARLY_SCRIPT (kept for good)
        self._tabs: dict[str, TabState] = {}
        self._tasks: set[asyncio.Task] = set()
        conn.on("Runtime.bindingCalled", self._on_binding)
        conn.on("Page.domContentEventFired", self._on_load)
        conn.on("Page.loadEventFired", self._on_load)

    def state(self, target_id: str) -> TabState:
        state = self._tabs.get(target_id)
        if state is None:
            state = self._tabs[target_id] = TabState()
        return state

    def forget(self, live: set[str]) -> None:
        """Drop the state of tabs that are gone."""
        for target_id in set(self._tabs) - live:
            state = self._tabs.pop(target_id)
            if state.task is not None:
                state.task.cancel()

    def asked(self, page: Any, options: LayoutOptions, capture: Any = None) -> None:
        """A request was answered for ``page`` from ``capture``: remember its options, make sure
        the page can notify. A new capture may be of a new document, and a binding does not
        always survive a navigation (Chromium 156 drops it when a navigation swaps the frame's
        renderer host, e.g. same-site with the back-forward cache): it is added again then."""
        state = self.state(page.target_id)
        state.options = dataclasses.replace(options, fresh=False)    # refreshes may patch
        state.asked_at = time.monotonic()
        sessions = [page] + list(getattr(page, "children", {}).values())
        if capture is not None and (state.capture is None or state.capture() is not capture):
            state.capture = weakref.ref(capture)
            # A patched capture is of the same document: only a new one may have lost the binding.
            documents = tuple(map(document_token, getattr(capture, "frames", ()))) or object()
            if documents != state.documents:
                state.documents = documents
                self._bound.difference_update(s.session_id for s in sessions)
        unbound = [s for s in sessions
                   if s.session_id not in self._bound or s.session_id not in self._early]
        if unbound:
            self._bound.update(s.session_id for s in unbound)
            self._spawn(self._bind(unbound))

    async def _bind(self, sessions: list[Any]) -> None:
        # One call per session: the binding is then installed in every frame's main world of
        # that target, now and after navigations. Page events give the load events. The early
        # script (once: it survives navigations) serves the tracker of every later document.
        early = [s for s in sessions if s.session_id not in self._early]
        self._early.update(s.session_id for s in early)
        results = await asyncio.gather(*(s.send("Runtime.addBinding", {"name": BINDING})
                                         for s in sessions),
                                       *(s.send("Page.enable") for s in sessions),
                                       *(s.send("Page.addScriptToEvaluateOnNewDocument",
                                                {"source": EARLY_SCRIPT}) for s in early),
                                       return_exceptions=True)
        for session, result in zip(early, results[2 * len(sessions):]):
            if isinstance(result, BaseException):
                self._early.discard(session.session_id)      # try again on the next request
        for session, result in zip(sessions, results):      # (Page.enable's: loads are a hint)
            if isinstance(result, BaseException):
                self._bound.discard(session.session_id)      # try again on the next request
                log.debug("Runtime.addBinding failed on %s: %s", session.session_id, result)

    def _on_binding(self, params: dict, session_id: str | None) -> None:
        if params.get("name") == BINDING:
            self._changed(session_id, str(params.get("payload") or ""))

    def _on_load(self, params: dict, session_id: str | None) -> None:
        self._changed(session_id, "")        # a new document: no signal to compare with

    def _changed(self, session_id: str | None, signal: str) -> None:
        if session_id is None:
            return
        tracker = self._tracker()
        page = tracker.page_for_session(session_id) if tracker is not None else None
        if page is None:
            return
        state = self._tabs.get(page.target_id)
        if state is None or time.monotonic() - state.asked_at > ACTIVE_SECONDS:
            return
        state.signal = signal
        if state.task is not None and not state.task.done():
            state.again = True
            return
        state.task = self._spawn(self._refresh(page, state))

    async def _refresh(self, page: Any, state: TabState) -> None:
        while True:
            state.again = False
            started = time.monotonic()
            try:
                async with state.lock:
                    await self._refresh_tab(page, state.options, state.signal)
                state.refreshes += 1
            except asyncio.CancelledError:
                raise
            except Exception as exc:   # noqa: BLE001 - the next request reports what is wrong
                log.debug("background layout of %s failed: %s", page.target_id, exc)
                return
            if not state.again:
                return
            # A busy page: pause as long as the refresh took, so it gets at most half a core.
            await asyncio.sleep(min(time.monotonic() - started, MAX_PAUSE))

    def _spawn(self, coro: Any) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
