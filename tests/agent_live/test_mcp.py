"""The MCP server through the SDK's own client: over stdio (python -m sidecar.mcp) and over
streamable HTTP at the sidecar's /mcp, against a real Chromium: list the tools, read a snapshot,
click a button by its ref, and see the click in the page."""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import asynccontextmanager

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.sidecar_service.support import REPO

from .conftest import AUTH, TOKEN

pytestmark = pytest.mark.chromium

TOOLS = {"browser_snapshot", "browser_act", "browser_tabs", "browser_navigate", "browser_playwright",
         "desktop_screenshot", "desktop_click", "desktop_type", "desktop_key", "desktop_scroll",
         "desktop_windows", "vision_read_text", "vision_click", "vision_fill", "vision_act"}


@asynccontextmanager
async def http_session(sidecar):
    async with httpx.AsyncClient(headers=AUTH, timeout=httpx.Timeout(60)) as http:
        # Stateless server: no session to end with a DELETE.
        async with streamable_http_client(sidecar.base_url + "/mcp", http_client=http,
                                          terminate_on_close=False) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def stdio_session(sidecar, desktopd_url: str = "http://127.0.0.1:9"):
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "sidecar.mcp", "--sidecar-url", sidecar.base_url,
                                      "--desktopd-url", desktopd_url],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": REPO, "SIDECAR_TOKEN": TOKEN}, cwd=REPO)
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def text(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def structured(result) -> dict:
    """The call's structured output: an object that is the same JSON as its text (for clients that
    read only text) or has it under "result" (a list; browser_tabs), never JSON packed in a string."""
    assert not result.isError, text(result)
    content = result.structuredContent
    assert isinstance(content, dict), content
    as_text = json.loads(text(result))
    assert content in (as_text, {"result": as_text})
    for value in content.values():
        assert not (isinstance(value, str) and value.lstrip()[:1] in ("{", "[")), content
    return content


async def snapshot_click_and_check(session: ClientSession) -> None:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) == TOOLS
    # Every tool says whether the watcher sees it.
    for name, tool in listed.items():
        assert "VISIBLE" in tool.description or "Read-only" in tool.description or \
            "HEADLESS" in tool.description, name
        # Structured output is an object the schema describes (the screenshot answers an image).
        assert name == "desktop_screenshot" or tool.outputSchema["type"] == "object", name
    shot = await session.call_tool("browser_snapshot", {})
    assert not shot.isError, text(shot)
    ref = re.search(r'button "Submit order" \[ref=([^\]]+)\]', text(shot))
    assert ref, text(shot)
    acted = await session.call_tool("browser_act", {"kind": "click", "ref": ref.group(1), "mode": "cdp"})
    assert structured(acted)["kind"] == "click", text(acted)
    clicks = await session.call_tool("browser_playwright", {"code": "await page.evaluate('clicks')"})
    assert structured(clicks)["result"] == [{"id": "submit", "trusted": True}]
    return ref.group(1)


async def test_over_http_on_the_sidecars_port(sidecar) -> None:
    async with http_session(sidecar) as session:
        await snapshot_click_and_check(session)
        tabs = structured(await session.call_tool("browser_tabs", {}))["result"]
        assert [t["title"] for t in tabs] == ["Form"]
        opened = structured(await session.call_tool("browser_tabs", {"action": "open", "url": "about:blank"}))["result"]
        tabs = structured(await session.call_tool("browser_tabs", {}))["result"]
        assert opened["id"] in [t["id"] for t in tabs] and len(tabs) == 2
        closed = await session.call_tool("browser_tabs", {"action": "close", "tab": opened["id"]})
        structured(closed)


async def test_over_stdio_and_a_stale_ref_is_refused(sidecar, pages) -> None:
    async with stdio_session(sidecar) as session:
        ref = await snapshot_click_and_check(session)
        moved = await session.call_tool("browser_navigate", {"url": pages["other"]})
        assert structured(moved)["url"] == pages["other"], text(moved)
        stale = await session.call_tool("browser_act", {"kind": "click", "ref": ref, "mode": "cdp"})
        assert stale.isError and "409" in text(stale) and "snapshot" in text(stale), text(stale)
        back = await session.call_tool("browser_navigate", {"go": "back"})
        structured(back)
        # desktopd is not running here: the tool says so instead of failing the session.
        unreachable = await session.call_tool("desktop_windows", {})
        assert unreachable.isError and "did not answer" in text(unreachable)


async def test_mcp_needs_the_token(sidecar) -> None:
    status, body = await sidecar.request("POST", "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 401
