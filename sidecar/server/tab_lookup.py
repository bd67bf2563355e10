"""A request's tabs on the live connection: the connection itself, a tab by id or prefix, the tab
in front, whether a tab is the one shown in its window, and a tab as JSON."""

from __future__ import annotations

import asyncio
from aiohttp import web

from ..browser.tab_health import TabHealth
from ..cdp.connection import CDPConnection, CDPError, CDPTimeout
from ..cdp.pages import visibility_state
from ..cdp.targets import PageTarget, TargetEntry, TargetTracker
from ..errors import ChromiumUnavailable, TabNotFound
from . import app_keys as keys

# How long /tabs waits for a tab to say whether it is the one in front.
VISIBILITY_BUDGET_S = 2.0


def live_session(request: web.Request) -> tuple[CDPConnection, TargetTracker]:
    live = request.app[keys.SUPERVISOR].current()
    return live.conn, live.tracker


def cdp_timeout(request: web.Request) -> float:
    return request.app[keys.SETTINGS].cdp_timeout


class TabEntry(TargetEntry):
    """One tab as GET /tabs lists it."""

    index: int
    frames: int
    visible: bool | None
    responsive: bool


def tab_json(page: PageTarget, index: int, visible: bool | None = None,
             health: TabHealth | None = None) -> TabEntry:
    body: TabEntry = {"id": page.target_id, "type": "page", "title": page.title,
                            "url": page.url, "attached": True, "index": index,
                            "frames": len(page.children), "visible": visible,
                            "responsive": not page.crashed and not (health is not None and
                                                                    health.unresponsive(page.target_id))}
    if page.opener_id:
        body["openerId"] = page.opener_id
    if page.crashed:
        body["crashed"] = True
    return body


def find_tab(tracker: TargetTracker, tab_id: str) -> tuple[PageTarget, int]:
    page = tracker.find_page(tab_id)
    if page is None:
        raise TabNotFound(tab_id)
    return page, tracker.pages().index(page)


def tab_health(request: web.Request) -> TabHealth:
    """The live connection's tab health."""
    return request.app[keys.SUPERVISOR].current().tab_health


async def shown_in_window(tracker: TargetTracker, page: PageTarget, health: TabHealth) -> bool | None:
    """Whether the tab is the one shown in its window (so desktopd clicks reach it); None when
    the tab cannot say (crashed, not answering, or loading a new document that has not
    committed within COMMIT_WAIT_S: Chromium holds the renderer's answers until then)."""
    if not await tracker.committed(page):
        return None
    if page.crashed or page.pending_navigation is not None or health.unresponsive(page.target_id):
        return None
    try:
        state = await visibility_state(page, min(VISIBILITY_BUDGET_S, health.budget_s))
    except CDPTimeout:
        health.mark(page)
        return None
    except CDPError:
        return None
    return state == "visible"


async def front_tab(request: web.Request) -> PageTarget:
    """The tab shown in the browser window (the first tab when none says it is)."""
    _conn, tracker = live_session(request)
    pages = tracker.pages()
    if not pages:
        raise ChromiumUnavailable("the browser has no tab")
    health = tab_health(request)
    visible = await asyncio.gather(*(shown_in_window(tracker, p, health) for p in pages))
    return next((p for p, v in zip(pages, visible) if v), pages[0])
