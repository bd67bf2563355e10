"""browser-use (PyPI, no model) connected by its documented ``cdp_url``: reads the DOM state of
the tab in front, clicks the element whose text is the second argument by its index, reads the
state again and prints {"url", "before", "after", "tabs"} as JSON. With a third argument, the
sidecar's /reset URL (and the token as the fourth), it then restarts the browser there, waits
(bounded) until its session, reconnected on its own at the URL discovery gave it, shows the
element again, and clicks it again ("restarted": the state after that click). Run with
.venv-browser-use's Python (scripts/lib.sh ensure_cdp_clients); the test checks the output."""

from __future__ import annotations

import asyncio
import json
import sys

import httpx
from browser_use import BrowserSession
from browser_use.tools.service import Tools

# Reads of the state after a restart (bounded: 30 s at most between them), until the element is back.
RECONNECT_READS = 60
POLL_S = 0.5


def texts(state) -> dict[int, str]:
    """Each interactive element's index and text, as an agent's prompt lists them."""
    return {index: node.get_all_children_text() or node.node_value
            for index, node in state.dom_state.selector_map.items()}


async def click(session: BrowserSession, label: str) -> dict[int, str]:
    """Clicks ``label`` by its index in a fresh state; the state after."""
    state = await session.get_browser_state_summary(include_screenshot=False)
    index = next(i for i, text in texts(state).items() if label in text)
    result = await Tools().registry.execute_action("click", {"index": index}, browser_session=session)
    if result.error:
        raise RuntimeError(result.error)
    return texts(await session.get_browser_state_summary(include_screenshot=False))


async def restart_and_click(session: BrowserSession, label: str, reset_url: str, token: str) -> dict[int, str]:
    async with httpx.AsyncClient(timeout=120) as http:
        # A restart (isolation "process"), as after a crash: a new browser id behind the same URL.
        answer = await http.post(reset_url, json={"isolation": "process"},
                                 headers={"Authorization": f"Bearer {token}"})
        answer.raise_for_status()
    for _ in range(RECONNECT_READS):
        try:
            state = await session.get_browser_state_summary(include_screenshot=False)
            if any(label in text for text in texts(state).values()):
                return await click(session, label)
        except Exception as exc:     # the session is reconnecting: the next read waits for it
            print(f"while reconnecting: {type(exc).__name__}: {exc}", file=sys.stderr)
        await asyncio.sleep(POLL_S)
    raise RuntimeError(f"{label!r} never came back after the restart")


async def main(cdp_url: str, label: str, reset_url: str | None, token: str | None) -> None:
    session = BrowserSession(cdp_url=cdp_url, keep_alive=False)
    await session.start()
    try:
        before = texts(await session.get_browser_state_summary(include_screenshot=False))
        after = await click(session, label)
        state = await session.get_browser_state_summary(include_screenshot=False)
        out = {"url": state.url, "before": before, "after": after, "tabs": [tab.url for tab in state.tabs]}
        if reset_url:
            out["restarted"] = await restart_and_click(session, label, reset_url, token or "")
        print(json.dumps(out))
    finally:
        await session.stop()      # disconnects; the browser is the sidecar's


if __name__ == "__main__":
    args = sys.argv[1:] + [None] * (4 - len(sys.argv[1:]))
    asyncio.run(asyncio.wait_for(main(*args), 150))
