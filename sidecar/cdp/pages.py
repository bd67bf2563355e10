"""A tab, an out-of-process iframe and a hidden page as the tracker (targets.py) keeps them, each
with its own session; a target as listed, and where a new window goes."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from httpapi.json_types import JSONObject

from .connection import CDPConnection
from .protocol.cdp_send import SessionCommands
from .protocol.cdp_types import RuntimeExceptionDetails


@dataclass
class ChildTarget(SessionCommands):
    """An out-of-process iframe attached under a page (``target_id`` is also its frame id)."""

    target_id: str
    session_id: str
    url: str
    parent_target_id: str          # the page or OOPIF whose session it attached under
    page_target_id: str            # the tab it belongs to
    _conn: CDPConnection = field(repr=False)

    async def send_raw(self, method: str, params: Mapping[str, object] | None = None, *,
                       timeout: float | None = None) -> JSONObject:
        return await self._conn.send_raw(method, params, session_id=self.session_id, timeout=timeout)


@dataclass
class PageTarget(SessionCommands):
    """An attached tab. ``children`` holds every OOPIF below it (nested ones too), by target id."""

    target_id: str
    session_id: str
    url: str
    title: str
    order: int
    _conn: CDPConnection = field(repr=False)
    opener_id: str | None = None
    crashed: bool = False
    children: dict[str, ChildTarget] = field(default_factory=dict)
    # Set once this page's own auto-attach is configured, i.e. its OOPIFs are being followed.
    ready: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    # The URL of a navigation of the tab to a new document that started and has not committed
    # yet, while the renderer does not answer. Meanwhile the tab still shows its previous
    # document, but Chromium holds every message to its renderer until the navigation ends
    # (commit or failure). Set by the browser's Page.frameStartedNavigating; cleared by the
    # commit (frameNavigated, or the target's info naming the new URL) or a renderer's answer.
    pending_navigation: str | None = None
    navigations: int = 0           # navigations started: tells a later one from an earlier one
    navigation_started: float = 0.0     # time.monotonic() when the last one started

    async def send_raw(self, method: str, params: Mapping[str, object] | None = None, *,
                       timeout: float | None = None) -> JSONObject:
        return await self._conn.send_raw(method, params, session_id=self.session_id, timeout=timeout)


@dataclass(frozen=True)
class HiddenPage(SessionCommands):
    """A page without a tab (Chromium 127+: type "other", not one of ``pages()``), attached by the
    tracker for as long as its ``hidden_page()`` block runs."""

    target_id: str
    session_id: str
    _conn: CDPConnection = field(repr=False)

    async def send_raw(self, method: str, params: Mapping[str, object] | None = None, *,
                       timeout: float | None = None) -> JSONObject:
        return await self._conn.send_raw(method, params, session_id=self.session_id, timeout=timeout)


class WindowBounds(TypedDict):
    """Where a new window goes, in DIP (CSS pixels): the supervisor's requested window."""

    x: int
    y: int
    width: int
    height: int


class TargetEntry(TypedDict):
    """One target as GET /targets lists it (tabs add theirs: server/tab_lookup.py)."""

    id: str
    type: str
    title: str
    url: str
    attached: bool
    openerId: NotRequired[str]
    parentId: NotRequired[str]
    crashed: NotRequired[bool]
    webSocketDebuggerUrl: NotRequired[str]      # through the exposed DevTools endpoint


def exception_text(details: RuntimeExceptionDetails) -> str:
    """What a page's script threw, as Runtime's exceptionDetails describe it."""
    exception = details.get("exception")
    return (exception.get("description") if exception else None) or details.get("text", "")


async def visibility_state(page: PageTarget, timeout: float | None) -> str | None:
    """The tab's ``document.visibilityState``: "visible" only for the tab shown in its window
    (the one desktop input reaches); None when the page answered something else. CDPError
    (CDPTimeout when it did not answer) is the caller's to weigh."""
    reply = await page.send("Runtime.evaluate", {"expression": "document.visibilityState",
                                                 "returnByValue": True}, timeout=timeout)
    value = reply.get("result", {}).get("value")
    return value if isinstance(value, str) else None
