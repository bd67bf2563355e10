"""Eager refresh: re-capture a tab in the background as soon as its page reports a change.

The in-page change tracker (probe.py) calls the ``Runtime.addBinding`` function named
``BINDING`` shortly after a burst of changes (debounced in the page). The binding
arrives here as ``Runtime.bindingCalled`` on the tab's (or its OOPIF's) session, and the tab's
layout is rebuilt at once with the query options it was last asked with, so that an agent's
next ``/layout`` (an observation right after it acted) is answered from a warm cache.
A new document has no tracker yet: its DOMContentLoaded (``Page.domContentEventFired``) and
its load event (``Page.loadEventFired``) start a refresh too, so "navigate, wait for the load,
look" finds the new page's full read already done, even when images hold the load event back
(what they change by then is patched).

Never stale: a request takes the tab's lock, so it waits for a refresh in flight and then runs
its own freshness check (the probe's change signal) like any other request, capturing again if
the page changed after the refresh started. A page that changes continuously costs at most
about half a core: a rerun waits as long as the previous refresh took. Only tabs asked for
recently (``ACTIVE_SECONDS``) are refreshed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..output.options import LayoutOptions
from ..probing.probe import BINDING, EARLY_SCRIPT, document_token
from ..runtime.seams import Connection, Page, Session, Tracker

if TYPE_CHECKING:
    from ..reading.capture import Capture
    from .tab import TabLayout

log = logging.getLogger(__name__)

ACTIVE_SECONDS = 60.0        # a tab nobody asked about for this long is not refreshed
MAX_PAUSE = 5.0              # longest pause between two refreshes of a busy page

# (page, its tab state, options, the frame signal the page sent): reads the tab again, under
# its lock, unless its capture already has that signal.
RefreshTab = Callable[[Page, "TabLayout", LayoutOptions, str], Awaitable[object]]


@dataclass
class RefreshState:
    options: LayoutOptions = LayoutOptions()
    asked_at: float = 0.0              # monotonic time of the last request
    task: asyncio.Task | None = None
    again: bool = False                # a change arrived while a refresh was running
    reading: bool = False              # the refresh holds the tab's lock (reads it) now
    refreshes: int = 0
    capture: weakref.ref[Capture] | None = None     # the capture last answered from
    documents: tuple | object = None   # that capture's documents (tokens): a new one needs binding
    signal: str = ""                   # the latest signal the page sent with its notification

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()


class EagerRefresher:
    """Per CDP connection: which sessions carry the binding; each tab's state is its TabLayout's."""

    def __init__(self, conn: Connection, tracker: Tracker,
                 tab_of: Callable[[str], TabLayout | None], refresh_tab: RefreshTab) -> None:
        self._conn = conn
        self._tracker = tracker
        self._tab_of = tab_of
        self._refresh_tab = refresh_tab
        self._bound: set[str] = set()                # session ids that have the binding
        self._early: set[str] = set()                # ... and probe.EARLY_SCRIPT (kept for good)
        self._tasks: set[asyncio.Task] = set()
        self._handlers = {"Runtime.bindingCalled": self._on_binding,
                          "Page.domContentEventFired": self._on_load,
                          "Page.loadEventFired": self._on_load}
        for event, handler in self._handlers.items():
            conn.on(event, handler)

    def stop(self) -> None:
        for event, handler in self._handlers.items():
            self._conn.off(event, handler)
        for task in list(self._tasks):
            task.cancel()

    async def settled(self) -> None:
        """Wait for the binding calls and refreshes in flight (callers bound the wait)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def in_flight(self) -> int:
        return len(self._tasks)

    def asked(self, page: Page, tab: TabLayout, options: LayoutOptions) -> None:
        """A request was answered for ``page`` from its tab's capture: remember its options, make
        sure the page can notify. A new capture may be of a new document, and a binding does not
        always survive a navigation (Chromium 156 drops it when a navigation swaps the frame's
        renderer host, e.g. same-site with the back-forward cache): it is added again then."""
        state, capture = tab.refresh, tab.capture
        state.options = dataclasses.replace(options, fresh=False)    # refreshes may patch
        state.asked_at = time.monotonic()
        sessions: list[Session] = [page, *page.children.values()]
        if capture is not None and (state.capture is None or state.capture() is not capture):
            state.capture = weakref.ref(capture)
            # A patched capture is of the same document: only a new one may have lost the binding.
            documents = tuple(map(document_token, capture.frames)) or object()
            if documents != state.documents:
                state.documents = documents
                self._bound.difference_update(s.session_id for s in sessions)
        unbound = [s for s in sessions
                   if s.session_id not in self._bound or s.session_id not in self._early]
        if unbound:
            self._bound.update(s.session_id for s in unbound)
            self._spawn(self._bind(unbound))

    async def _bind(self, sessions: list[Session]) -> None:
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
        page = self._tracker.page_for_session(session_id)
        tab = self._tab_of(page.target_id) if page is not None else None
        if page is None or tab is None or time.monotonic() - tab.refresh.asked_at > ACTIVE_SECONDS:
            return
        state = tab.refresh
        state.signal = signal
        if state.task is not None and not state.task.done():
            state.again = True
            return
        state.task = self._spawn(self._refresh(page, tab))

    async def _refresh(self, page: Page, tab: TabLayout) -> None:
        state = tab.refresh
        while True:
            state.again = False
            started = time.monotonic()
            try:
                async with tab.lock:
                    state.reading = True
                    try:
                        await self._refresh_tab(page, tab, state.options, state.signal)
                    finally:
                        state.reading = False
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

    def _spawn(self, coro: Coroutine[object, object, None]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
