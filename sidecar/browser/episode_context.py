"""A new episode in the running Chromium: a fresh browser context in its own window.

A browser context (Target.createBrowserContext) is an off-the-record profile in memory: its
cookies, local/session storage, IndexedDB, cache storage, service workers, HTTP cache, history
and permission grants are its own and go when it is disposed. So a reset need not wait for a new
Chromium: the episode's URLs open in a new window of a new context (on top, focused, where the
browser's window belongs), then the previous episode's context is disposed with its windows,
dialogs and downloads in progress (disposal skips beforeunload handlers). The first episode runs
in the browser's default context on its fresh throwaway profile; its tabs are closed instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cdp.connection import CDPConnection, CDPError
from ..cdp.targets import PageTarget, TargetTracker
from ..cdp.protocol.cdp_commands import TargetCreateTargetParams


@dataclass
class EpisodeTimings:
    """Seconds per part of a context swap (for the reset's answer) and the tabs it opened."""

    parts: dict[str, float] = field(default_factory=dict)
    target_ids: list[str] = field(default_factory=list)

    def lap(self, name: str, since: float) -> float:
        now = time.monotonic()
        self.parts[name] = round(now - since, 4)
        return now


def window_params(window: dict[str, int] | None, params: TargetCreateTargetParams) -> TargetCreateTargetParams:
    """``params`` with the window bounds (DIP) of the supervisor's requested window."""
    if window is not None:
        params.update({"left": window["x"], "top": window["y"], "width": window["width"],
                       "height": window["height"]})
    return params


async def open_episode(conn: CDPConnection, tracker: TargetTracker, urls: Sequence[str],
                       window: dict[str, int] | None, downloads_dir: str,
                       timeout: float) -> tuple[str, EpisodeTimings]:
    """Create a context, let it download into ``downloads_dir``, open ``urls`` in a new window
    of it (the first one in front). Returns the context id once every tab is attached; the
    previous episode is still open (``close_previous`` ends it)."""
    timings = EpisodeTimings()
    since = time.monotonic()
    created = await conn.send("Target.createBrowserContext", {}, timeout=timeout)
    context_id = created["browserContextId"]
    try:
        await conn.send("Browser.setDownloadBehavior", {
            "behavior": "allowAndName", "downloadPath": downloads_dir, "eventsEnabled": True,
            "browserContextId": context_id}, timeout=timeout)
        since = timings.lap("context", since)
        first = await conn.send("Target.createTarget", window_params(window, {
            "url": urls[0] if urls else "about:blank", "browserContextId": context_id,
            "newWindow": True}), timeout=timeout)
        target_ids = timings.target_ids
        target_ids.append(first["targetId"])
        for url in urls[1:]:
            # Without newWindow a context's tab opens in that context's window, behind the first.
            created_tab = await conn.send("Target.createTarget", {
                "url": url, "browserContextId": context_id, "background": True}, timeout=timeout)
            target_ids.append(created_tab["targetId"])
        await asyncio.gather(*(tracker.wait_for_page(target_id, timeout) for target_id in target_ids))
        timings.lap("window", since)
    except BaseException:
        await dispose_quietly(conn, context_id, timeout)
        raise
    return context_id, timings


async def close_previous(conn: CDPConnection, tracker: TargetTracker, previous_context: str | None,
                         previous_pages: Sequence[PageTarget], timeout: float) -> None:
    """End the previous episode: dispose its context, or (the default context's first episode)
    close its tabs without their beforeunload handlers. Returns once the tracker has dropped
    them, so the tabs listed next are the new episode's only."""
    if previous_context is not None:
        await dispose_quietly(conn, previous_context, timeout)
    else:
        for page in previous_pages:
            try:
                await conn.send("Target.closeTarget", {"targetId": page.target_id}, timeout=timeout)
            except CDPError:
                pass              # closed meanwhile
    gone = [page.target_id for page in previous_pages]
    await tracker.wait_for(lambda: all(tracker.find_page(target_id) is None for target_id in gone),
                           timeout)


async def dispose_quietly(conn: CDPConnection, context_id: str, timeout: float) -> None:
    try:
        await conn.send("Target.disposeBrowserContext", {"browserContextId": context_id},
                        timeout=timeout)
    except CDPError:
        pass                      # gone already (its last window was closed)


def empty_directory(path: str) -> None:
    """Remove what is in ``path`` (the previous episode's downloads), keep the directory."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                pass
