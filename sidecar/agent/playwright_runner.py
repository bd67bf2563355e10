"""``python -m sidecar.agent.playwright_runner RESULT_FILE``: runs one piece of Python Playwright code
against the live browser, then exits (POST /playwright starts one per call, so nothing the code
defines outlives it; the browser and its tabs do).

Standard input: a JSON object {"code", "ws_url", "target_id"}: the code, Chromium's browser
WebSocket (its private loopback endpoint) and the tab to bind as ``page``. The code's own prints
go to this process's stdout and stderr, which the sidecar reads; the outcome is written to
RESULT_FILE as {"result", "error", "success"}.

The code is the body of an async function with ``page``, ``context`` and ``browser`` bound:
``return`` gives the result. A single expression is returned as it is (``await page.title()``).
"""

from __future__ import annotations

import ast
import asyncio
import json
import sys
import textwrap
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypedDict, cast

from httpapi.json_types import JSONValue

if TYPE_CHECKING:       # Playwright is imported only when code runs
    from playwright.async_api import Browser, BrowserContext, Page

CONNECT_TIMEOUT_MS = 15_000
FUNCTION = "__playwright_code__"


class Outcome(TypedDict):
    """What RESULT_FILE holds."""

    success: bool
    result: JSONValue
    error: str | None


PlaywrightCode = Callable[["Page | None", "BrowserContext", "Browser"], Awaitable[object]]


def compile_code(code: str) -> PlaywrightCode:
    """The code as an async function taking (page, context, browser); SyntaxError as raised."""
    try:
        compile(code, "<playwright>", "eval", flags=0x2000)   # PyCF_ALLOW_TOP_LEVEL_AWAIT
        body = f"return ({code}\n)"
    except SyntaxError:
        body = code
    source = f"async def {FUNCTION}(page, context, browser):\n{textwrap.indent(body, '    ')}\n    pass\n"
    tree = ast.parse(source, "<playwright>")
    ast.increment_lineno(tree, -1)      # tracebacks count the caller's lines from 1
    namespace: dict[str, object] = {}
    exec(compile(tree, "<playwright>", "exec"), namespace)  # noqa: S102 - running it is the point
    return cast(PlaywrightCode, namespace[FUNCTION])    # the async def in ``source``


async def _page_of(context: BrowserContext, target_id: str) -> Page | None:
    """The Playwright page of a CDP target id (None when the tab is gone)."""
    for page in context.pages:
        session = await context.new_cdp_session(page)
        try:
            info = await session.send("Target.getTargetInfo")
        finally:
            await session.detach()
        if info["targetInfo"]["targetId"] == target_id:
            return page
    return None


async def run(code: str, ws_url: str, target_id: str | None) -> Outcome:
    try:
        function = compile_code(code)
    except SyntaxError as exc:
        return {"success": False, "result": None,
                "error": f"SyntaxError: {exc.msg} (line {max(1, (exc.lineno or 2) - 1)})"}
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(ws_url, timeout=CONNECT_TIMEOUT_MS)
        context = browser.contexts[0]
        page = await _page_of(context, target_id) if target_id else None
        if target_id and page is None:
            return {"success": False, "result": None, "error": f"the tab {target_id} is gone"}
        try:
            value = await function(page, context, browser)
        except Exception as exc:    # the code's failure is the caller's content, not ours
            # The traceback from the caller's code down (this module's frame left out).
            frames = traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
            return {"success": False, "result": None, "error": "".join(frames)}
        try:
            result: JSONValue = json.loads(json.dumps(value))
        except (TypeError, ValueError) as exc:
            return {"success": False, "result": None,
                    "error": f"the code returned a {type(value).__name__}, which is not JSON-serialisable "
                             f"({exc}): return dicts, lists, strings, numbers, booleans or None"}
        return {"success": True, "result": result, "error": None}


def main(argv: list[str]) -> int:
    result_path = argv[0]
    request = json.load(sys.stdin)
    outcome = asyncio.run(run(request["code"], request["ws_url"], request.get("target_id")))
    sys.stdout.flush()
    sys.stderr.flush()
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(outcome, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
