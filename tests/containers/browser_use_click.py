"""browser-use (PyPI, no model) connected by its documented ``cdp_url``: reads the DOM state of
the tab in front, clicks the element whose text is the first argument by its index, reads the
state again and prints {"url", "before", "after", "tabs"} as JSON. Run with .venv-browser-use's
Python (scripts/lib.sh ensure_cdp_clients); the test gives the URL and checks the page."""

from __future__ import annotations

import asyncio
import json
import sys

from browser_use import BrowserSession
from browser_use.tools.service import Tools


def texts(state) -> dict[int, str]:
    """Each interactive element's index and text, as an agent's prompt lists them."""
    return {index: node.get_all_children_text() or node.node_value
            for index, node in state.dom_state.selector_map.items()}


async def main(cdp_url: str, label: str) -> None:
    session = BrowserSession(cdp_url=cdp_url, keep_alive=False)
    await session.start()
    try:
        before = await session.get_browser_state_summary(include_screenshot=False)
        index = next(i for i, text in texts(before).items() if label in text)
        result = await Tools().registry.execute_action("click", {"index": index}, browser_session=session)
        if result.error:
            raise RuntimeError(result.error)
        after = await session.get_browser_state_summary(include_screenshot=False)
        print(json.dumps({"url": after.url, "before": texts(before), "after": texts(after),
                          "tabs": [tab.url for tab in after.tabs]}))
    finally:
        await session.stop()      # disconnects; the browser is the sidecar's


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2]), 120))
