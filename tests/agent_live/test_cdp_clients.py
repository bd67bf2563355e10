"""CDP clients nobody here wrote, on the sidecar's /cdp with their documented connect lines
(docs/agent.md): Puppeteer's browserWSEndpoint with the token and browserURL without, Playwright's
connect_over_cdp with the token in the URL; a client closing the last page leaves the browser
running; the browser socket handed out reaches the browser after a restart."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import async_playwright

from testbed.capability import have_program, require
from tests.sidecar_service.support import SidecarProcess

from .conftest import AUTH, TOKEN, loaded

pytestmark = pytest.mark.chromium

ROOT = Path(__file__).resolve().parents[2]
# scripts/lib.sh's ensure_cdp_clients installs puppeteer-core (scripts/cdp-clients/) here.
NODE_MODULES = ROOT / ".state" / "cdp-clients" / "node_modules"
PUPPETEER_CLICK = Path(__file__).with_name("puppeteer_click.cjs")
CLIENT_TIMEOUT_S = 60


async def puppeteer(options: dict[str, object]) -> dict[str, object]:
    """Runs puppeteer_click.cjs with these connect options; its JSON line, or the failure."""
    require(have_program("node") and (NODE_MODULES / "puppeteer-core").is_dir(),
            "puppeteer-core from npm (scripts/lib.sh ensure_cdp_clients)")
    process = await asyncio.create_subprocess_exec(
        "node", str(PUPPETEER_CLICK), json.dumps(options),
        env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), CLIENT_TIMEOUT_S)
    assert process.returncode == 0, err.decode()
    return json.loads(out.decode().strip().splitlines()[-1])


CLICKED = [{"id": "submit", "trusted": True}]


async def test_puppeteer_browser_ws_endpoint_with_the_token_as_a_header(sidecar) -> None:
    """With a token Puppeteer connects by browserWSEndpoint (its browserURL sends no headers and
    keeps nothing of the URL but host and port: it cannot carry a token)."""
    endpoint = f"ws://{sidecar.base_url.removeprefix('http://')}/cdp/devtools/browser/desktopd"
    result = await puppeteer({"browserWSEndpoint": endpoint, "headers": AUTH})
    assert result["title"] == "Form" and result["clicks"] == CLICKED
    with pytest.raises(AssertionError, match="401"):
        await puppeteer({"browserWSEndpoint": endpoint})
    with pytest.raises(AssertionError, match="json/version: HTTP Unauthorized"):
        await puppeteer({"browserURL": sidecar.base_url + "/cdp"})


async def test_puppeteer_browser_ws_endpoint_with_the_token_in_the_url(sidecar) -> None:
    status, version = await sidecar.get(f"/cdp/json/version?token={TOKEN}")
    assert status == 200
    endpoint = version["webSocketDebuggerUrl"]
    host = sidecar.base_url.removeprefix("http://")
    # What discovery hands out carries what the client needs to connect, and stays the same.
    assert endpoint == f"ws://{host}/cdp/devtools/browser/desktopd?token={TOKEN}"
    result = await puppeteer({"browserWSEndpoint": endpoint})
    assert result["title"] == "Form" and result["clicks"] == CLICKED
    # A wrong token in the URL is refused.
    with pytest.raises(AssertionError, match="401"):
        await puppeteer({"browserWSEndpoint": endpoint.replace(TOKEN, "wrong")})


async def test_the_token_in_a_url_never_reaches_the_log(sidecar) -> None:
    await puppeteer({"browserWSEndpoint": f"ws://{sidecar.base_url.removeprefix('http://')}"
                                          f"/cdp/devtools/browser/desktopd?token={TOKEN}"})
    status, _ = await sidecar.get(f"/cdp/json/list?token={TOKEN}")
    assert status == 200
    await sidecar.wait_for_line(r"GET /cdp/json/list\?token=REDACTED", 10)
    assert not [line for line in sidecar.lines if TOKEN in line]


async def test_the_url_token_and_the_open_discovery_are_only_where_they_should_be(sidecar) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        # Discovery needs the token, at the root as under /cdp.
        for path in ("/json/version", "/cdp/json/version/"):
            async with http.get(sidecar.base_url + path) as response:
                assert response.status == 401, path
        # The other listings need the token, in the header or the URL.
        async with http.get(sidecar.base_url + "/json/list") as response:
            assert response.status == 401
        async with http.get(sidecar.base_url + "/json/list", params={"token": TOKEN}) as response:
            assert response.status == 200
            assert all(t["webSocketDebuggerUrl"].endswith(f"?token={TOKEN}")
                       for t in await response.json() if "webSocketDebuggerUrl" in t)
        # chromedp's discovery: /json/version at the root of the URL, its query kept.
        async with http.get(sidecar.base_url + "/json/version", params={"token": TOKEN}) as response:
            host = sidecar.base_url.removeprefix("http://")
            assert (await response.json())["webSocketDebuggerUrl"] == \
                f"ws://{host}/cdp/devtools/browser/desktopd?token={TOKEN}"
        # No other route takes the token in the URL.
        async with http.get(sidecar.base_url + "/tabs", params={"token": TOKEN}) as response:
            assert response.status == 401
        # A web page is refused whatever it presents.
        async with http.get(sidecar.base_url + "/json/version",
                            headers={"Origin": "https://evil.example"}) as response:
            assert response.status == 403


async def test_playwright_connect_over_cdp_with_the_token_in_the_url(sidecar) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(f"{sidecar.base_url}/cdp?token={TOKEN}",
                                                             timeout=30_000)
        try:
            page = browser.contexts[0].pages[0]
            await page.click("#submit", timeout=10_000)
            assert await page.evaluate("clicks") == CLICKED
        finally:
            await browser.close()


async def test_closing_the_last_page_over_cdp_leaves_the_browser_running(sidecar) -> None:
    status, health = await sidecar.get("/health")
    pid = health["pid"]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(sidecar.base_url + "/cdp", headers=AUTH,
                                                             timeout=30_000)
        try:
            context = browser.contexts[0]
            (page,) = context.pages
            await page.close()                     # Target.closeTarget of the only page
            assert browser.is_connected()
            # The client can go on: a new page in the same browser.
            other = await context.new_page()
            await other.goto("about:blank")
        finally:
            await browser.close()
    status, health = await sidecar.get("/health")
    assert health["pid"] == pid and health["status"] == "ok", health
    assert not [line for line in sidecar.lines if "Chromium is down" in line]
    status, tabs = await sidecar.get("/tabs", headers=AUTH)   # the blank page that kept it open, and ours
    assert [t["url"] for t in tabs] == ["about:blank", "about:blank"], tabs


async def test_the_browser_socket_handed_out_survives_a_restart(sidecar, pages) -> None:
    status, before = await sidecar.get("/cdp/json/version", headers=AUTH)
    status, reset = await sidecar.request("POST", "/reset", json={"urls": [pages["form"]]}, headers=AUTH)
    assert status == 200, reset
    status, after = await sidecar.get("/cdp/json/version", headers=AUTH)
    assert after["webSocketDebuggerUrl"] == before["webSocketDebuggerUrl"]
    # The URL a client kept from before the restart reaches the new browser.
    result = await puppeteer({"browserWSEndpoint": before["webSocketDebuggerUrl"], "headers": AUTH})
    assert result["clicks"] == CLICKED


async def test_puppeteer_browser_url_without_a_token(chromium, pages) -> None:
    """A sidecar on loopback without a token: docs/agent.md's line as written."""
    sidecar = await SidecarProcess.start(["--headless", pages["form"]])
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        await loaded(sidecar, pages["form"])      # its Authorization header is simply not needed
        for url in (sidecar.base_url + "/cdp", sidecar.base_url):
            result = await puppeteer({"browserURL": url})
            assert result["title"] == "Form" and result["clicks"][-1] == CLICKED[0], url
    finally:
        await sidecar.stop()


async def test_page_close_on_a_page_socket_gets_a_neighbour_first(sidecar) -> None:
    """The other way to close a page: Page.close on the page's own socket (no session id)."""
    status, tabs = await sidecar.get("/tabs", headers=AUTH)
    (tab,) = tabs
    socket_url = f"ws://{sidecar.base_url.removeprefix('http://')}/cdp/devtools/page/{tab['id']}"
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        async with http.ws_connect(socket_url, headers=AUTH) as socket:
            await socket.send_json({"id": 1, "method": "Page.close"})
            reply = await socket.receive_json(timeout=20)
            assert reply.get("id") == 1, reply
    for _ in range(200):        # bounded: until the closed tab is gone from the sidecar's list
        status, tabs = await sidecar.get("/tabs", headers=AUTH)
        if tab["id"] not in [t["id"] for t in tabs]:
            break
        await asyncio.sleep(0.05)
    assert [t["url"] for t in tabs] == ["about:blank"], tabs
