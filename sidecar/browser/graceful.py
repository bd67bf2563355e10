"""Closing a browser so that its profile keeps what it holds: Browser.close lets Chromium write
cookies and storage to disk and exit by itself. A signal to its process group would stop the
network service (which owns the cookie store) at the same moment as the browser, before either
wrote anything. Only named profiles need it: a throwaway one is deleted anyway."""

from __future__ import annotations

import asyncio
import logging

from httpapi.bounded import within

from ..cdp.connection import CDPConnection, CDPError
from .launcher import ChromiumProcess

log = logging.getLogger(__name__)


async def close_gracefully(conn: CDPConnection | None, chromium: ChromiumProcess | None,
                           timeout: float) -> bool:
    """Asks Chromium to close and waits for its exit; False when it did not (the caller's stop
    then signals it)."""
    if conn is None or chromium is None or chromium.returncode is not None or not conn.connected:
        return chromium is not None and chromium.returncode is not None
    try:
        await conn.send("Browser.close", timeout=timeout)
    except CDPError:
        pass                      # it may close the socket before it answers
    try:
        await within(chromium.process.wait(), timeout)
    except asyncio.TimeoutError:
        log.warning("Chromium %d did not close within %.0f s; its profile may miss recent changes",
                    chromium.pid, timeout)
        return False
    return True
