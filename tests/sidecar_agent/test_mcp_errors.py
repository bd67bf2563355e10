"""How the MCP tools report a failed call of desktopd or the sidecar (unit: a small aiohttp app
answers): the service's code, detail, field and candidates in the ToolError, an unreachable
service as "did not answer", an id that would change the path refused before sending."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from mcp.server.fastmcp.exceptions import ToolError

from sidecar.mcp.backends import Backends, answer
from testbed.served_app import served


@pytest.fixture
async def failing_url() -> AsyncIterator[str]:
    async def vision_click(request: web.Request) -> web.Response:
        return web.json_response({"error": "ambiguous", "detail": "2 places show OK", "field": "text",
                                  "candidates": [{"text": "OK", "center": [1, 2]}]}, status=409)

    async def tabs(request: web.Request) -> web.Response:
        return web.Response(text="upstream went away", status=502)

    async with served([web.post("/api/v1/vision/click", vision_click), web.get("/tabs", tabs)]) as url:
        yield url


async def test_a_failed_call_carries_the_services_own_words(failing_url: str) -> None:
    backends = Backends(failing_url, failing_url)
    try:
        with pytest.raises(ToolError) as caught:
            await answer(backends.client.vision_click("OK"))
        assert str(caught.value) == ('POST /api/v1/vision/click failed with 409: ambiguous: 2 places show OK '
                                     '(field text); candidates: [{"text": "OK", "center": [1, 2]}]')
        with pytest.raises(ToolError) as caught:     # not JSON: the body's start, and not asked twice
            await answer(backends.client.tabs())
        assert str(caught.value) == "GET /tabs failed with 502: upstream went away"
        with pytest.raises(ToolError) as caught:
            await answer(backends.client.close_tab("../health"))
        assert "not a valid id" in str(caught.value)
    finally:
        await backends.close()


async def test_an_unreachable_service_did_not_answer() -> None:
    backends = Backends("http://127.0.0.1:9", "http://127.0.0.1:9")   # the discard port
    try:
        with pytest.raises(ToolError) as caught:
            await answer(backends.client.tree())
        assert str(caught.value).startswith("GET /api/v1/tree: the service did not answer")
    finally:
        await backends.close()
