"""A CDP client closing the browser's last page must not end the browser.

Chromium quits when its last window's last tab closes; the supervisor would restart it on its
start pages, losing the browser's state and every client's connection. Clients close pages
without knowing they are the last (browser-use closes tabs it does not like, Puppeteer's and
Playwright's ``page.close()`` send ``Target.closeTarget``). So the proxy reads what a client
sends for the two ways of closing a page, ``Target.closeTarget`` and ``Page.close``, and before
forwarding one that would close the last page it has the sidecar open a blank neighbour, as its
own ``DELETE /tabs/{id}`` does. The tab strip then shows one blank tab instead of none.

Only messages that name one of those methods are parsed; everything else is relayed untouched.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

# Opens a blank page when ``target_id`` is the browser's only page (tracker.py's
# open_neighbour_if_last through the live connection).
KeepOpen = Callable[[str], Awaitable[None]]
_CLOSING = ('"Target.closeTarget"', '"Page.close"')
_ATTACHED = '"Target.attachedToTarget"'
_DETACHED = '"Target.detachedFromTarget"'


class LastPageKeeper:
    """One client socket's view: which session is which target, and which page a close names.

    ``socket_target`` is the page of a ``/devtools/page/{id}`` socket (its messages without a
    session are that page's), None for the browser socket."""

    def __init__(self, keep_open: KeepOpen, socket_target: str | None) -> None:
        self._keep_open = keep_open
        self._socket_target = socket_target
        self._session_targets: dict[str, str] = {}

    def saw_from_chromium(self, data: str) -> None:
        """Learns flattened sessions from Chromium's attach/detach events."""
        if _ATTACHED not in data and _DETACHED not in data:
            return
        message = _parsed(data)
        params = message.get("params")
        if not isinstance(params, dict):
            return
        if message.get("method") == "Target.attachedToTarget":
            target = params.get("targetInfo", {}).get("targetId")
            if isinstance(params.get("sessionId"), str) and isinstance(target, str):
                self._session_targets[params["sessionId"]] = target
        elif message.get("method") == "Target.detachedFromTarget":
            self._session_targets.pop(str(params.get("sessionId")), None)

    async def before_sending(self, data: str) -> None:
        """Waits for a blank neighbour when ``data`` would close the last page."""
        if not any(method in data for method in _CLOSING):
            return
        target = self._closed_target(_parsed(data))
        if target is None:
            return
        try:
            await self._keep_open(target)
        except Exception as exc:   # the close goes through anyway; the supervisor restarts Chromium
            log.warning("could not open a page beside %s before a client closed it: %s", target, exc)

    def _closed_target(self, message: dict[str, object]) -> str | None:
        method, params, session = message.get("method"), message.get("params"), message.get("sessionId")
        if method == "Target.closeTarget" and isinstance(params, dict):
            target = params.get("targetId")
            return target if isinstance(target, str) else None
        if method == "Page.close":
            if isinstance(session, str):
                return self._session_targets.get(session)
            return self._socket_target
        return None


def _parsed(data: str) -> dict[str, object]:
    try:
        message = json.loads(data)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}
