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

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..cdp.connection import CDPConnection
from ..cdp.targets import PageTarget, TargetTracker, WindowBounds


@dataclass
class EpisodeTimings:
    """Seconds per part of a context swap (for the reset's answer) and the tabs it opened."""

    parts: dict[str, float] = field(default_factory=dict)
    target_ids: list[str] = field(default_factory=list)

    def lap(self, name: str, since: float) -> float:
        now = time.monotonic()
        self.parts[name] = round(now - since, 4)
        return now


async def open_episode(conn: CDPConnection, tracker: TargetTracker, urls: Sequence[str],
                       window: WindowBounds | None, downloads_dir: str,
                       timeout: float) -> tuple[str, EpisodeTimings]:
    """Create a context, let it download into ``downloads_dir``, open ``urls`` in a new window
    of it (the first one in front). Returns the context id once every tab is attached; the
    previous episode is still open (``close_previous`` ends it)."""
    timings = EpisodeTimings()
    since = time.monotonic()
    context_id = await tracker.new_context(timeout)
    try:
        await conn.send("Browser.setDownloadBehavior", {
            "behavior": "allowAndName", "downloadPath": downloads_dir, "eventsEnabled": True,
            "browserContextId": context_id}, timeout=timeout)
        since = timings.lap("context", since)
        pages = await tracker.open_window(urls, context_id, window, timeout)
        timings.target_ids.extend(page.target_id for page in pages)
        timings.lap("window", since)
    except BaseException:
        await tracker.dispose_context(context_id, timeout)
        raise
    return context_id, timings


async def close_previous(tracker: TargetTracker, previous_context: str | None,
                         previous_pages: Sequence[PageTarget], timeout: float) -> None:
    """End the previous episode: dispose its context, or (the default context's first episode)
    close its tabs without their beforeunload handlers. Returns once the tracker has dropped
    them, so the tabs listed next are the new episode's only."""
    if previous_context is not None:
        await tracker.dispose_context(previous_context, timeout)
        await tracker.wait_gone([page.target_id for page in previous_pages], timeout)
    else:
        await tracker.close_tabs(previous_pages, timeout)


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
