"""Follow Chromium's tabs and out-of-process iframes over one connection, without reconnecting.

The browser session auto-attaches (flattened) to every page; each page session then auto-attaches
to its out-of-process iframes (OOPIFs), and each OOPIF session to its own, so a cross-origin
iframe's document is reachable as a child session of its tab. ``waitForDebuggerOnStart`` is false:
new targets run immediately and nothing has to be resumed.

State changes come only from CDP events (attachedToTarget, detachedFromTarget, targetCreated,
targetInfoChanged, targetDestroyed, targetCrashed), handled synchronously in the connection's
reader, so ``pages()`` is always consistent with the order events arrived in.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Protocol

from httpapi.bounded import within

from .attach import AttachPipeline
from .connection import INVALID_PARAMS, CDPConnection, CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from .pages import ChildTarget, HiddenPage, PageTarget, TargetEntry, WindowBounds
from .protocol.cdp_commands import PageNavigateResult, PageReloadResult, TargetCreateTargetParams
from .protocol.cdp_types import TargetTargetInfo

__all__ = ["ChildTarget", "HiddenPage", "PageTarget", "TargetEntry", "TargetTracker", "WindowBounds"]

log = logging.getLogger(__name__)

# Page.frameStartedNavigating's navigationType values that keep the document.
SAME_DOCUMENT_NAVIGATIONS = frozenset({"sameDocument", "historySameDocument"})
# How long after its start an ordinary navigation is given to commit before it is said to be
# pending (a server that never answers leaves it so): /tabs' visibility, /snapshot and /layout of
# a tab never read wait until then at most, and not at all once it is older.
COMMIT_WAIT_S = 2.0
# How long a closed tab may remain before Chromium is asked again to close it.
CLOSE_REASK_S = 2.0


class Navigating(Protocol):
    @property
    def pending_navigation(self) -> str | None: ...

    @property
    def navigation_started(self) -> float: ...


def commit_time_left(page: Navigating, wait_s: float = COMMIT_WAIT_S) -> float:
    """How much longer an ordinary navigation of ``page`` may still commit in: ``wait_s`` from its
    start, 0 when none is pending or it is older."""
    if page.pending_navigation is None:
        return 0.0
    return max(0.0, page.navigation_started + wait_s - time.monotonic())


class TargetTracker:
    """Targets of one CDPConnection. ``await start()`` once; it follows changes from then on."""

    def __init__(self, conn: CDPConnection, *, configure_timeout: float = 10.0) -> None:
        self.conn = conn
        self.configure_timeout = configure_timeout
        self._infos: dict[str, TargetTargetInfo] = {}   # targetId -> latest TargetInfo
        self._order: dict[str, int] = {}             # targetId -> creation sequence
        self._sequence = itertools.count()
        self._pages: dict[str, PageTarget] = {}      # targetId -> page
        self._children: dict[str, ChildTarget] = {}  # targetId -> OOPIF (any depth)
        self._sessions: dict[str, str] = {}          # sessionId -> targetId, every attached target
        self._tasks: set[asyncio.Task] = set()
        self._change = asyncio.Event()
        self._handlers: dict[str, Callable[[dict, str | None], None]] = {
            "Target.attachedToTarget": self._on_attached,
            "Target.detachedFromTarget": self._on_detached,
            "Target.targetCreated": self._on_created,
            "Target.targetInfoChanged": self._on_info_changed,
            "Target.targetDestroyed": self._on_destroyed,
            "Target.targetCrashed": self._on_crashed,
            "Page.frameStartedNavigating": self._on_navigation_started,
            "Page.frameNavigated": self._on_frame_navigated,
        }
        self._attach = AttachPipeline(conn, configure_timeout)     # sets up every new session
        # The browser context new tabs open in: the episode's (browser/episode_context.py), or
        # None for the browser's default context.
        self.browser_context_id: str | None = None

    async def start(self) -> None:
        for method, handler in self._handlers.items():
            self.conn.on(method, handler)
        await self.conn.send("Target.setDiscoverTargets", {"discover": True})
        await self._attach.set_up_browser()

    def stop(self) -> None:
        for method, handler in self._handlers.items():
            self.conn.off(method, handler)
        for task in list(self._tasks):
            task.cancel()

    # -- the targets' lifecycle: the only sender of these commands (tests/architecture says so) --

    async def open_tab(self, url: str, *, background: bool, timeout: float) -> PageTarget:
        """A new tab on ``url`` in the episode's browser context, once attached and configured."""
        params: TargetCreateTargetParams = {"url": url, "background": background}
        if self.browser_context_id is not None:
            params["browserContextId"] = self.browser_context_id
        created = await self.conn.send("Target.createTarget", params, timeout=timeout)
        return await self.wait_for_page(created["targetId"], timeout)

    async def open_window(self, urls: Sequence[str], context_id: str, bounds: WindowBounds | None,
                          timeout: float) -> list[PageTarget]:
        """A new window of the browser context ``context_id`` (at ``bounds``, DIP) with a tab on
        each of ``urls`` (about:blank when none), the first in front; once each is attached."""
        first: TargetCreateTargetParams = {"url": urls[0] if urls else "about:blank",
                                           "browserContextId": context_id, "newWindow": True}
        if bounds is not None:
            first.update({"left": bounds["x"], "top": bounds["y"], "width": bounds["width"],
                          "height": bounds["height"]})
        target_ids = [(await self.conn.send("Target.createTarget", first, timeout=timeout))["targetId"]]
        for url in urls[1:]:
            # Without newWindow a context's tab opens in that context's window, behind the first.
            created = await self.conn.send("Target.createTarget", {
                "url": url, "browserContextId": context_id, "background": True}, timeout=timeout)
            target_ids.append(created["targetId"])
        return list(await asyncio.gather(*(self.wait_for_page(target_id, timeout) for target_id in target_ids)))

    async def activate(self, page: PageTarget) -> None:
        """``page`` becomes the tab shown in its window (the one desktop input reaches)."""
        await self.conn.send("Target.activateTarget", {"targetId": page.target_id})

    async def navigate(self, page: PageTarget | HiddenPage, url: str, timeout: float) -> PageNavigateResult:
        """Page.navigate: answered by the browser process once the new document committed or
        failed (``errorText``), so it also revives a crashed tab."""
        return await page.send("Page.navigate", {"url": url}, timeout=timeout)

    async def revive(self, page: PageTarget, timeout: float) -> PageNavigateResult:
        """A new document for ``page`` at its URL: revives a crashed renderer (Page.reload would be
        sent to the dead one)."""
        return await self.navigate(page, page.url or "about:blank", timeout)

    async def reload(self, page: PageTarget, timeout: float) -> PageReloadResult:
        """Page.reload: the tab's document loaded again (sent to its renderer: see revive)."""
        return await page.send("Page.reload", timeout=timeout)

    async def go_to_history_entry(self, page: PageTarget, entry_id: int, timeout: float) -> None:
        """The tab's session-history entry ``entry_id`` (Page.getNavigationHistory's ids)."""
        await page.send("Page.navigateToHistoryEntry", {"entryId": entry_id}, timeout=timeout)

    async def new_context(self, timeout: float) -> str:
        """A new browser context (an off-the-record profile in memory): its id."""
        return (await self.conn.send("Target.createBrowserContext", {}, timeout=timeout))["browserContextId"]

    async def dispose_context(self, context_id: str, timeout: float) -> None:
        """Drops the browser context with its windows (their beforeunload handlers skipped)."""
        try:
            await self.conn.send("Target.disposeBrowserContext", {"browserContextId": context_id},
                                 timeout=timeout)
        except CDPError:
            pass                      # gone already (its last window was closed)

    async def close_tabs(self, pages: Sequence[PageTarget], timeout: float) -> None:
        """Closes ``pages`` without their beforeunload handlers or a blank neighbour (another
        window stays) and waits until they are gone."""
        for page in pages:
            try:
                await self.conn.send("Target.closeTarget", {"targetId": page.target_id}, timeout=timeout)
            except CDPError:
                pass                  # closed meanwhile
        await self.wait_gone([page.target_id for page in pages], timeout)

    async def wait_gone(self, target_ids: Sequence[str], timeout: float) -> None:
        await self.wait_for(lambda: all(target_id not in self._pages for target_id in target_ids), timeout)

    @contextlib.asynccontextmanager
    async def hidden_page(self, timeout: float) -> AsyncIterator[HiddenPage]:
        """A page without a tab in the episode's browser context, attached while the block runs
        (it is not auto-attached: not a page target), then closed."""
        params: TargetCreateTargetParams = {"url": "about:blank", "hidden": True}
        if self.browser_context_id is not None:
            params["browserContextId"] = self.browser_context_id
        target_id = (await self.conn.send("Target.createTarget", params, timeout=timeout))["targetId"]
        try:
            attached = await self.conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True},
                                            timeout=timeout)
            yield HiddenPage(target_id, attached["sessionId"], self.conn)
        finally:
            try:
                await self.conn.send("Target.closeTarget", {"targetId": target_id}, timeout=timeout)
            except CDPError:
                pass                  # the browser is going away anyway

    # -- queries -----------------------------------------------------------------------------

    def pages(self) -> list[PageTarget]:
        """Attached page targets, in tab (creation) order. A page being prerendered (speculation
        rules) is a page target too, but not a tab until it is activated."""
        return sorted((page for page in self._pages.values() if not self._prerendering(page.target_id)),
                      key=lambda page: page.order)

    def _prerendering(self, target_id: str) -> bool:
        info = self._infos.get(target_id)
        return info is not None and info.get("subtype") == "prerender"

    def targets(self) -> list[TargetEntry]:
        """Every known target (pages, iframes, workers...), in creation order."""
        attached = set(self._sessions.values())
        result = []
        for target_id in sorted(self._infos, key=lambda tid: self._order.get(tid, 0)):
            info = self._infos[target_id]
            entry: TargetEntry = {
                "id": target_id, "type": info.get("type", ""), "title": info.get("title", ""),
                "url": info.get("url", ""), "attached": target_id in attached,
            }
            if info.get("openerId"):
                entry["openerId"] = info["openerId"]
            child = self._children.get(target_id)
            if child is not None:
                entry["parentId"] = child.parent_target_id
            page = self._pages.get(target_id)
            if page is not None and page.crashed:
                entry["crashed"] = True
            result.append(entry)
        return result

    def find_page(self, id_or_prefix: str) -> PageTarget | None:
        """The page with this target id, or the only one whose id starts with it (any case)."""
        page = self._pages.get(id_or_prefix)
        if page is not None or not id_or_prefix:
            return page
        wanted = id_or_prefix.upper()
        matches = [p for p in self._pages.values() if p.target_id.upper().startswith(wanted)]
        return matches[0] if len(matches) == 1 else None

    def page_for_session(self, session_id: str) -> PageTarget | None:
        target_id = self._sessions.get(session_id)
        if target_id is None:
            return None
        if target_id in self._pages:
            return self._pages[target_id]
        child = self._children.get(target_id)
        return self._pages.get(child.page_target_id) if child else None

    async def wait_for(self, predicate: Callable[[], bool], timeout: float) -> None:
        """Wait until ``predicate()`` holds after some target change; CDPTimeout otherwise."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0 or not self.conn.connected:
                raise CDPTimeout(f"targets did not reach the expected state within {timeout} s")
            event = self._change
            try:
                await within(event.wait(), min(remaining, 1.0))
            except asyncio.TimeoutError:
                pass  # re-check the predicate and the connection at least once a second

    async def committed(self, page: PageTarget, timeout: float = COMMIT_WAIT_S) -> bool:
        """Whether the page has no navigation pending (or crashed) within ``timeout`` of that
        navigation's start. An ordinary navigation commits within milliseconds; one to a server
        that never answers stays pending, and Chromium holds the renderer's answers meanwhile:
        once it is ``timeout`` old, the answer is given at once."""
        left = commit_time_left(page, timeout)
        try:
            await self.wait_for(lambda: page.pending_navigation is None or page.crashed, left)
        except CDPTimeout:
            return False
        return True

    async def close(self, page: PageTarget, timeout: float) -> bool:
        """Closes ``page`` (the last tab given a blank neighbour first) and waits until it is
        gone: False when Chromium refused, CDPSessionClosed when it had gone already, CDPTimeout
        when it stays. A close that arrives while a navigation commits in a new renderer can be
        dropped by Chromium (the tab loads on, open): while the tab remains, Chromium is asked
        again every CLOSE_REASK_S."""
        await self.open_neighbour_if_last(page.target_id)
        if not await self._close_target(page):
            return False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            try:
                await self.wait_for(lambda: page.target_id not in self._pages, min(left, CLOSE_REASK_S))
                return True
            except CDPTimeout:
                if left <= CLOSE_REASK_S:
                    raise CDPTimeout(f"tab {page.target_id} was still open {timeout} s after "
                                     "Chromium was asked to close it") from None
            log.info("tab %s still open %.1f s after its close: asking Chromium again",
                     page.target_id, CLOSE_REASK_S)
            try:
                if not await self._close_target(page):
                    return False
            except CDPSessionClosed:
                pass            # it went meanwhile: its detach is on its way

    async def _close_target(self, page: PageTarget) -> bool:
        """Target.closeTarget for ``page``: False when Chromium refused. A tab that went away between
        its lookup and this call (closed by another request) is CDPSessionClosed (409 tab_closed),
        not Chromium's "No target with given id found" as a 502."""
        try:
            result = await self.conn.send("Target.closeTarget", {"targetId": page.target_id})
        except CDPError as exc:
            if exc.code == INVALID_PARAMS and "no target" in exc.message.lower():
                raise CDPSessionClosed(f"tab {page.target_id} was already closed",
                                       method="Target.closeTarget") from None
            raise
        return result.get("success") is not False

    async def open_neighbour_if_last(self, target_id: str) -> None:
        """A blank page beside ``target_id`` when it is the only page, before it closes: a
        window's last tab closing quits Chromium, and the restart that follows would lose the
        browser's state (cookies, logins, history) and every CDP client's connection."""
        if [p.target_id for p in self.pages()] == [target_id]:
            await self.open_tab("about:blank", background=True, timeout=self.configure_timeout)

    async def wait_for_page(self, target_id: str, timeout: float) -> PageTarget:
        """The attached, configured page ``target_id`` (e.g. right after Target.createTarget)."""
        await self.wait_for(lambda: target_id in self._pages, timeout)
        page = self._pages[target_id]
        try:
            await within(page.ready.wait(), timeout)
        except asyncio.TimeoutError:
            raise CDPTimeout(f"page {target_id} attached but was not configured in {timeout} s") from None
        return page

    async def refresh(self, target_id: str) -> None:
        """Re-read one target's info now (its title may trail a navigation's load event)."""
        result = await self.conn.send("Target.getTargetInfo", {"targetId": target_id})
        if "targetInfo" in result and target_id in self._infos:
            self._on_info_changed(dict(result), None)

    async def refresh_titles(self) -> None:
        """Re-read every target's title with one Target.getTargets (one cheap call).

        Chromium sends no targetInfoChanged when a page sets ``document.title`` (its tab strip
        shows the new title, the target events keep the old one), so titles are re-read before
        they are reported. Only titles: everything else follows the events."""
        result = await self.conn.send("Target.getTargets")
        for info in result.get("targetInfos", ()):
            target_id = info.get("targetId")
            title = info.get("title")
            known = self._infos.get(target_id)
            if known is None or not isinstance(title, str) or known.get("title") == title:
                continue        # unknown (created/destroyed meanwhile) or unchanged
            self._infos[target_id] = {**known, "title": title}
            page = self._pages.get(target_id)
            if page is not None:
                page.title = title

    # -- event handlers (sync, called by the connection's reader) -----------------------------

    def _changed(self) -> None:
        self._change.set()
        self._change = asyncio.Event()

    def _remember(self, info: TargetTargetInfo) -> None:
        target_id = info["targetId"]
        if target_id not in self._order:
            self._order[target_id] = next(self._sequence)
        self._infos[target_id] = info

    def _on_created(self, params: dict, _session: str | None) -> None:
        self._remember(params["targetInfo"])
        self._changed()

    def _on_info_changed(self, params: dict, _session: str | None) -> None:
        info = params["targetInfo"]
        self._remember(info)
        target_id = info["targetId"]
        page = self._pages.get(target_id)
        if page is not None:
            # Info also changes right after a crash (a title, the URL): the tab counts as
            # revived only once its renderer answers.
            if page.crashed:
                self._spawn(self.confirm_revived(page))
            page.url = info.get("url", page.url)
            page.title = info.get("title", page.title)
            if page.pending_navigation is not None and page.url == page.pending_navigation:
                # The browser names the new document's URL once it committed (a tab attached
                # mid-navigation has its Page events only from the next document on).
                self._navigation_ended(page, page.navigations)
        child = self._children.get(target_id)
        if child is not None:
            child.url = info.get("url", child.url)
        self._changed()

    def _on_destroyed(self, params: dict, _session: str | None) -> None:
        self._infos.pop(params["targetId"], None)
        self._order.pop(params["targetId"], None)
        self._changed()

    async def confirm_revived(self, page: PageTarget) -> None:
        """Clears ``page``'s crash mark once its renderer answers (after a new document)."""
        if not page.crashed:
            return
        try:
            await page.send("Runtime.evaluate", {"expression": "0", "returnByValue": True},
                            timeout=self.configure_timeout)
        except CDPError:
            return          # still dead (or gone): the mark stays
        if page.crashed:
            page.crashed = False
            self._changed()

    def _on_navigation_started(self, params: dict, session_id: str | None) -> None:
        """The tab (its main frame) started loading a new document: the browser process says so
        at once (Page.frameStartedNavigating), before the renderer's messages are held."""
        page = self.page_for_session(session_id) if session_id else None
        if page is None or params.get("frameId") != page.target_id \
                or params.get("navigationType") in SAME_DOCUMENT_NAVIGATIONS:
            return
        page.pending_navigation = str(params.get("url") or "")
        page.navigations += 1
        page.navigation_started = time.monotonic()
        self._spawn(self._until_navigation_ends(page, page.navigations))
        self._changed()

    def _on_frame_navigated(self, params: dict, session_id: str | None) -> None:
        page = self.page_for_session(session_id) if session_id else None
        frame = params.get("frame") or {}
        if page is not None and frame.get("id") == page.target_id and not frame.get("parentId"):
            self._navigation_ended(page, page.navigations)

    async def _until_navigation_ends(self, page: PageTarget, navigation: int) -> None:
        """Chromium answers a call to the renderer only once the navigation has committed or
        failed: an answer is that evidence (also for a navigation that ends without a commit,
        e.g. a download or a 204, which sends no frameNavigated)."""
        while page.pending_navigation is not None and page.navigations == navigation:
            try:
                await page.send("Runtime.evaluate", {"expression": "0", "returnByValue": True},
                                timeout=self.configure_timeout)
            except CDPTimeout:
                continue            # still pending: ask again (the tab's state decides, not a clock)
            except (CDPSessionClosed, CDPDisconnected):
                return              # the tab (or the browser) went away
            except CDPError:
                pass                # an error the renderer answered (its document was replaced)
            self._navigation_ended(page, navigation)

    def _navigation_ended(self, page: PageTarget, navigation: int) -> None:
        if page.navigations == navigation and page.pending_navigation is not None:
            page.pending_navigation = None
            self._changed()

    def _on_crashed(self, params: dict, _session: str | None) -> None:
        page = self._pages.get(params.get("targetId", ""))
        if page is not None:
            page.crashed = True
        self._changed()

    def _on_attached(self, params: dict, parent_session: str | None) -> None:
        info = params["targetInfo"]
        session_id = params["sessionId"]
        target_id = info["targetId"]
        kind = info.get("type")
        self._remember(info)
        if parent_session is None:
            if kind != "page":
                return          # a filter-less (older) Chromium may attach workers: not tabs
            self._sessions[session_id] = target_id
            page = PageTarget(target_id=target_id, session_id=session_id, url=info.get("url", ""),
                              title=info.get("title", ""), order=self._order[target_id],
                              _conn=self.conn, opener_id=info.get("openerId"))
            self._pages[target_id] = page
            self._spawn(self._attach.set_up(session_id, bool(params.get("waitingForDebugger")),
                                            lambda: self._readied(page.ready)))
        elif kind == "iframe":
            parent_id = self._sessions.get(parent_session)
            owner = self.page_for_session(parent_session)
            if parent_id is None or owner is None:
                return          # its parent detached meanwhile
            self._sessions[session_id] = target_id
            child = ChildTarget(target_id=target_id, session_id=session_id, url=info.get("url", ""),
                                parent_target_id=parent_id, page_target_id=owner.target_id,
                                _conn=self.conn)
            self._children[target_id] = child
            owner.children[target_id] = child
            self._spawn(self._attach.set_up(session_id, bool(params.get("waitingForDebugger")),
                                            lambda: self._readied(None)))
        self._changed()

    def _on_detached(self, params: dict, _parent_session: str | None) -> None:
        session_id = params.get("sessionId", "")
        target_id = self._sessions.pop(session_id, None)
        if target_id is None:
            return
        page = self._pages.pop(target_id, None)
        if page is not None:
            for child_id in page.children:
                child = self._children.pop(child_id, None)
                if child is not None:
                    self._sessions.pop(child.session_id, None)
            page.children.clear()
        child = self._children.pop(target_id, None)
        if child is not None:
            owner = self._pages.get(child.page_target_id)
            if owner is not None:
                owner.children.pop(target_id, None)
        self._changed()

    # -- tasks -------------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[object, object, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _readied(self, ready: asyncio.Event | None) -> None:
        if ready is not None:
            ready.set()
        self._changed()
