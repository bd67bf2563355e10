"""/layout for one Chromium connection: the tabs' layout state, the readers, the encoded bodies.

The Chromium supervisor creates one ``LayoutService`` beside the target tracker and drops it
with the connection: nothing about layouts outlives the connection it was read over. Inside it,
one ``TabLayout`` per tab holds that tab's lock, its capture and its background refresh.

``await service.build(options, health)`` is the /layout body: every tab asked for, read through
the freshness loop (freshness/loop.py); a tab that fails carries its error in the HTTP form a route
would give it (sidecar/errors.py) while the others answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from httpapi.bounded import within
from httpapi.errors import ApiError
from sidecar.cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from sidecar.cdp.targets import commit_time_left
from sidecar.errors import (ChromiumUnavailable, LayoutUnavailable, NavigationPending, PageChanging,
                            RendererCrashed, TabNotFound, TabUnresponsive, as_api_error)

from .answering.answer import answer, previous_document
from .runtime.aio import or_exception
from .output.encoding import EncodedBody, LayoutEncoder, options_key
from .freshness.loop import read_tab
from .output.options import LayoutOptions
from .output.shapes import FailedLayout, Layout, TabEntry
from .probing.change_signal import unprovable
from .reading.readers import ALL, Reader
from .freshness.refresh import EagerRefresher
from .runtime.seams import Connection, Page, TabHealth, Tracker, WindowCheck
from .freshness.tab import LayoutCounters, TabLayout

log = logging.getLogger(__name__)

REFRESH_GRACE_S = 1.0   # how long a request waits for a background read in flight

TAB_TIMEOUT = 20.0          # a whole tab's layout; each CDP call also has the client's timeout


class LayoutService:
    def __init__(self, conn: Connection, tracker: Tracker, *, readers: Sequence[Reader] = ALL,
                 refresh: bool = True, window_check: WindowCheck | None = None) -> None:
        """``readers``: the ways to read a tab, in order (readers.readers_named); ``refresh``:
        read a tab again in the background as soon as its page reports a change;
        ``window_check``: where the browser's window geometry must be checked against the
        compositor's (Wayland), each tab's entry says whether its screen bounds are exact."""
        self.conn, self.tracker = conn, tracker
        self.window_check = window_check
        self.readers = tuple(readers)
        self.counters = LayoutCounters()
        self.encoder = LayoutEncoder()
        self.tabs: dict[str, TabLayout] = {}
        self.refresher = EagerRefresher(conn, tracker, self.tabs.get, self._refresh_tab) \
            if refresh else None

    def stop(self) -> None:
        if self.refresher is not None:
            self.refresher.stop()
        for tab in self.tabs.values():
            tab.refresh.cancel()
        self.tabs.clear()

    def tab(self, target_id: str) -> TabLayout:
        tab = self.tabs.get(target_id)
        if tab is None:
            tab = self.tabs[target_id] = TabLayout()
        return tab

    async def build(self, options: LayoutOptions, health: TabHealth | None = None) -> dict[str, Any]:
        """The /layout body. Raises a domain exception (sidecar/errors.py) for a bad ``tab``, or
        when the one asked for fails. With ``health``, a tab that already stopped answering is
        reported at once, and one that does not answer within the health's budget is reported
        and marked, while the others answer. Its "tabs" are output.shapes.TabEntry; the body
        stays a plain dict for the in-process readers that index into it (the agent)."""
        if not self.conn.connected:
            raise ChromiumUnavailable("not connected to Chromium")
        pages = self._pages(options.tab)
        self._forget_closed_tabs()
        # Before the reads: a window that is still settling is waited for, so the reads see it settled.
        unsettled = await asyncio.gather(*(self.window_check.unsettled(page) for page in pages)) \
            if self.window_check is not None else None
        # Titles are re-read alongside (Chromium sends no event when a page sets document.title):
        # each tab's entry names its current title.
        _, results = await asyncio.gather(or_exception(self.tracker.refresh_titles()), asyncio.gather(
            *(self._tab_or_error(page, options, health) for page in pages)))
        if options.tab is not None and isinstance(results[0], Exception):
            raise results[0]
        tabs: list[TabEntry] = [self._entry(page, result, options) for page, result in zip(pages, results)]
        if unsettled is not None:
            for entry, reason in zip(tabs, unsettled):
                entry["screenBounds"] = {"exact": True} if reason is None else {"exact": False, "reason": reason}
        if options.order == "front":
            # The tab in front first (as CDP's /json lists them), then the rest in tab-strip order.
            tabs.sort(key=lambda entry: entry.get("visible") is not True)
        return {"tabs": tabs}

    def encode(self, body: Mapping[str, object], options: LayoutOptions) -> EncodedBody:
        """The body as bytes (encoding.py): each tab's layout encoded once while unchanged."""
        return self.encoder.encode(body, options_key(options))

    def _pages(self, tab: str | None) -> Sequence[Page]:
        if tab is None:
            return self.tracker.pages()
        page = self.tracker.find_page(tab)
        if page is None:
            raise TabNotFound(tab, field="tab")
        return [page]

    def _forget_closed_tabs(self) -> None:
        live = {page.target_id for page in self.tracker.pages()}
        for gone in set(self.tabs) - live:
            self.tabs.pop(gone).refresh.cancel()

    def _entry(self, page: Page, result: Layout | Exception, options: LayoutOptions) -> TabEntry:
        pending = page.pending_navigation
        entry: TabEntry = {"id": page.target_id, "url": page.url, "title": page.title,
                           "pendingNavigation": {"url": pending} if pending is not None else None}
        if isinstance(result, Exception):
            # The reference's shape ({"error": message}) with our error object beside it, in
            # the HTTP form a route would give the same failure (sidecar/errors.py).
            error = as_api_error(result)
            entry["visible"] = None
            entry["layout"] = failed_layout(error)
            entry["error"] = error.body()
            return entry
        tab = self.tabs.get(page.target_id)
        capture = tab.capture if tab is not None else None
        entry["visible"] = None if capture is None else capture.visible
        entry["layout"] = result
        if self.refresher is not None and tab is not None and not options.inline_text_boxes:
            self.refresher.asked(page, tab, options)
        return entry

    async def _tab_or_error(self, page: Page, options: LayoutOptions,
                            health: TabHealth | None) -> Layout | Exception:
        """The tab's layout, or the domain exception (sidecar/errors.py) saying why not."""
        tab = self.tab(page.target_id)
        if page.pending_navigation is not None and not page.crashed:
            # Its renderer answers nothing until the navigation ends, but the previous document
            # is still what the tab shows: the answer last given for it, at once. (Only while
            # the tab's URL is still the one it was read at: the read is of the document the
            # entry names.)
            shown = previous_document(tab.capture, options) if tab.read_url == page.url else None
            if shown is not None:
                return shown
        if health is not None and health.unresponsive(page.target_id) and not page.crashed:
            return TabUnresponsive("the tab stopped answering (a script that does not yield); its "
                                   "layout is read again once it answers")
        budget = min(TAB_TIMEOUT, health.budget_s) if health is not None else TAB_TIMEOUT
        if page.pending_navigation is not None and not page.crashed:
            # Never read (opened onto the navigation, e.g. by window.open): the read answers once
            # the navigation commits, which an ordinary one does within milliseconds. It waits
            # only as long as that navigation may still commit; then the tab is said to be
            # pending (_not_answered), at once for a navigation already older.
            budget = min(budget, commit_time_left(page))
            if budget <= 0:
                return self._navigation_pending(page)
        try:
            return await within(self._locked_read(page, options), budget)
        except asyncio.TimeoutError:
            return self._not_answered(page, health, TabUnresponsive(f"no layout within {budget:g} s"))
        except Exception as exc:     # CDP errors and the rest: an error for this tab only
            if isinstance(exc, CDPTimeout):
                return self._not_answered(page, health, _classify(page, exc))
            return _classify(page, exc)

    @classmethod
    def _not_answered(cls, page: Page, health: TabHealth | None, error: Exception) -> Exception:
        """A tab whose read was not answered: one whose navigation started meanwhile is pending;
        any other tab is marked unresponsive."""
        if page.pending_navigation is not None:
            return cls._navigation_pending(page)
        if health is not None:
            health.mark(page)
        return error

    @staticmethod
    def _navigation_pending(page: Page) -> NavigationPending:
        return NavigationPending(f"the tab is loading {page.pending_navigation}, and its previous "
                                 "document was never read: nothing is read until the navigation ends")

    async def _locked_read(self, page: Page, options: LayoutOptions) -> Layout:
        """One read of a tab at a time: a request waits for a background refresh (or another
        request) in flight. If that one's check that the page is as captured went out after this
        request arrived, the check holds for this request too: the answer comes from the capture
        at once. Otherwise the request checks freshness itself, usually finding the capture warm."""
        arrived = time.monotonic()
        tab = self.tab(page.target_id)
        async with _tab_locked(tab):
            capture = tab.capture
            checked = capture.checked if capture is not None else None
            if capture is not None and checked is not None and checked.sent_at > arrived and not options.fresh \
                    and not options.inline_text_boxes and not page.crashed and not unprovable(checked):
                return await answer(page, capture, checked.probe, checked.metrics, options)
            layout = await self._read(page, tab, options)
            tab.read_url = page.url
            return layout

    async def _read(self, page: Page, tab: TabLayout, options: LayoutOptions) -> Layout:
        if page.crashed:
            raise RendererCrashed("the tab's renderer crashed; it is reloaded (or POST /tabs/{id}/reload)")
        return await read_tab(page, tab, options, self.readers, self.counters)

    async def _refresh_tab(self, page: Page, tab: TabLayout, options: LayoutOptions, signal: str) -> None:
        """A background read after the page's change notification (the refresher holds the lock)."""
        known = tab.capture
        if signal and known is not None and signal in known.frames:
            return      # the request that ran meanwhile captured this change already
        layout = await within(self._read(page, tab, options), TAB_TIMEOUT)
        self.counters.refreshes += 1
        # The HTTP body too: the next request just sends bytes.
        self.encoder.prime(page.target_id, options_key(options), layout)


@contextlib.asynccontextmanager
async def _tab_locked(tab: TabLayout) -> AsyncIterator[None]:
    """The tab's lock, as soon as it is free. A background read still holding it after
    REFRESH_GRACE_S is cancelled, so the request reads the tab itself: a page that cannot answer
    the refresh's probe (a JavaScript dialog open, a navigation not committed yet) must not make
    the request wait for it. (Waiting for the lock, not for the refresh's task: that task also
    pauses between the reads of a busy page, without the lock.)"""
    acquire = asyncio.ensure_future(tab.lock.acquire())
    try:
        done, _pending = await asyncio.wait({acquire}, timeout=REFRESH_GRACE_S)
        if not done:
            refresh = tab.refresh.task
            if refresh is not None and not refresh.done() and tab.refresh.reading:
                refresh.cancel()
            await acquire
    except BaseException:
        # Cancelled while waiting: never leave the lock taken, nor a waiter queued for it.
        if acquire.done() and not acquire.cancelled():
            tab.lock.release()
        else:
            acquire.cancel()
        raise
    try:
        yield
    finally:
        tab.lock.release()


def failed_layout(error: ApiError) -> FailedLayout:
    """A tab's "layout" when it could not be read: the reference's {"error": message}."""
    detail = error.detail if isinstance(error.detail, str) else error.error
    return {"error": f"{error.error}: {detail}", "code": error.error}


def _classify(page: Page, exc: Exception) -> Exception:
    """What a failed read of one tab means, as a domain exception (HTTP: sidecar/errors.py)."""
    if page.crashed:
        return RendererCrashed("the tab's renderer crashed; it is reloaded (or POST /tabs/{id}/reload)")
    if isinstance(exc, CDPTimeout):
        return TabUnresponsive(str(exc))      # the read of this tab did not answer
    if isinstance(exc, (CDPSessionClosed, CDPDisconnected, PageChanging, ApiError)):
        return exc
    if isinstance(exc, (CDPError, ValueError)):
        # Chromium refused a call (e.g. "Frame not found" as the page navigates away).
        return LayoutUnavailable(str(exc))
    log.exception("layout of tab %s failed", page.target_id)
    return exc
