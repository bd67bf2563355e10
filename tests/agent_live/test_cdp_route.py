"""/cdp on the sidecar's own port: Playwright's connect_over_cdp with an http URL and the token
drives the live browser; without the token, or from a web page, nothing is served."""

from __future__ import annotations

import aiohttp
import pytest
from playwright.async_api import async_playwright

from .conftest import AUTH

pytestmark = pytest.mark.chromium


async def test_playwright_connects_over_cdp_with_the_token_and_clicks(sidecar) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(sidecar.base_url + "/cdp", headers=AUTH,
                                                             timeout=30_000)
        try:
            page = browser.contexts[0].pages[0]
            assert await page.title() == "Form"
            await page.click("#submit", timeout=10_000)
            clicks = await page.evaluate("clicks")
        finally:
            await browser.close()            # a connected browser: disconnects, Chromium stays
    assert clicks == [{"id": "submit", "trusted": True}]
    # The browser outlived the client: the sidecar still has it and its tab.
    status, tabs = await sidecar.get("/tabs", headers=AUTH)
    assert status == 200 and [t["title"] for t in tabs] == ["Form"]


async def test_the_listing_points_at_the_proxy_and_needs_the_token(sidecar) -> None:
    host = sidecar.base_url.removeprefix("http://")
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        async with http.get(sidecar.base_url + "/cdp/json/version") as response:
            assert response.status == 401
        async with http.get(sidecar.base_url + "/cdp/json/version/", headers=AUTH) as response:
            assert response.status == 200
            browser_ws = (await response.json())["webSocketDebuggerUrl"]
        assert browser_ws.startswith(f"ws://{host}/cdp/devtools/browser/")
        async with http.get(sidecar.base_url + "/cdp/json/list", headers=AUTH) as response:
            targets = await response.json()
        assert all(t["webSocketDebuggerUrl"].startswith(f"ws://{host}/cdp/devtools/")
                   for t in targets if "webSocketDebuggerUrl" in t)
        # The socket itself: refused without the token, and to a web page even with it.
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(browser_ws)
        assert refused.value.status == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as foreign:
            await http.ws_connect(browser_ws, headers={**AUTH, "Origin": "https://evil.example"})
        assert foreign.value.status == 403
        # A plain GET is not a socket; an unknown kind is not Chromium's.
        async with http.get(browser_ws.replace("ws://", "http://"), headers=AUTH) as response:
            assert response.status == 400
            assert (await response.json())["error"] == "not_websocket"
        async with http.get(sidecar.base_url + "/cdp/devtools/nothing/x", headers=AUTH) as response:
            assert response.status == 404


async def test_the_routes_are_in_the_openapi_document(sidecar) -> None:
    status, spec = await sidecar.get("/openapi.json", headers=AUTH)
    assert status == 200
    for path in ("/cdp/json/version", "/cdp/json/version/", "/cdp/json/list", "/cdp/devtools/{kind}/{id}",
                 "/playwright", "/mcp"):
        assert path in spec["paths"], path
        operation = next(iter(spec["paths"][path].values()))
        assert "401" in operation["responses"], path      # behind the token
    body = spec["paths"]["/playwright"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["code"] and set(body["properties"]) == {"code", "timeout_s", "tab"}
