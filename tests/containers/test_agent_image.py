"""The Chromium images' agent surfaces: in desktopd/chromium-full, POST /playwright runs the
image's pinned Playwright (from the host's wheelhouse or PyPI) against its own visible Chromium;
desktopd/chromium leaves Playwright out and says so (501 naming the full image). /cdp and /mcp
answer from the host through the published port with the token. On both desktop backends
(Chromium on X11, and on Wayland under Sway)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright

from .conftest import chromium_container
from .support import Desktop


@pytest.fixture(scope="module", params=["x11", "sway"])
def chromium_desktop(images: dict[str, str], request: pytest.FixtureRequest) -> Iterator[Desktop]:
    yield from chromium_container(images, request.param)


@pytest.fixture(scope="module", params=["x11", "sway"])
def chromium_full_desktop(images: dict[str, str], request: pytest.FixtureRequest) -> Iterator[Desktop]:
    yield from chromium_container(images, request.param, image="chromium-full")


def x_extensions(desktop: Desktop) -> set[str] | None:
    """The X server's extensions, or None on Sway (no X server: Xwayland is off)."""
    code, backend = desktop.exec_in("printenv", "DESKTOPD_BACKEND")
    if backend.strip() == "sway":
        return None
    code, output = desktop.exec_in("xdpyinfo", "-queryExtensions")
    assert code == 0, output
    return {line.split()[0] for line in output.split("number of extensions:", 1)[1].splitlines()[1:]
            if line.startswith("    ")}


def test_the_default_image_leaves_playwright_and_gl_out_and_says_so(chromium_desktop: Desktop) -> None:
    response = chromium_desktop.post(8122, "/playwright", {"code": "return 1"})
    assert response.status_code == 501, response.text
    assert response.json()["error"] == "playwright_not_installed", response.text
    assert "desktopd/chromium-full" in response.json()["detail"], response.text
    extensions = x_extensions(chromium_desktop)
    # Mesa's drivers are not unpacked: Xvfb runs without GLX (nothing in the image is a GLX client).
    assert extensions is None or ("GLX" not in extensions and "XTEST" in extensions), extensions


def test_playwright_code_runs_in_the_full_image_against_its_browser(chromium_full_desktop: Desktop) -> None:
    chromium_desktop = chromium_full_desktop
    extensions = x_extensions(chromium_desktop)
    assert extensions is None or "GLX" in extensions, extensions   # Mesa's drivers are back
    response = chromium_desktop.post(8122, "/playwright", {
        "code": "from importlib.metadata import version\nprint(version('playwright'))\n"
                "await page.click('text=Press me')\n"
                "return {'title': await page.title(), 'button': await page.inner_text('button')}"})
    assert response.status_code == 200, response.text
    out = response.json()
    assert out["success"] is True, out
    assert out["result"] == {"title": "Container start page", "button": "Clicked"}
    assert out["stdout"].strip() == "1.65.2"        # the pin of pyproject.toml's `agent` extra
    failed = chromium_desktop.post(8122, "/playwright", {"code": "await page.click('#absent', timeout=500)"})
    assert failed.status_code == 200 and failed.json()["success"] is False
    assert "Timeout" in failed.json()["error"]


def test_cdp_and_mcp_from_the_host(chromium_desktop: Desktop) -> None:
    async def drive() -> tuple[str, set[str], str]:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(
                chromium_desktop.url(8122, "/cdp"), headers=chromium_desktop.headers(), timeout=30_000)
            try:
                title = await browser.contexts[0].pages[0].title()
            finally:
                await browser.close()
        async with httpx.AsyncClient(headers=chromium_desktop.headers(), timeout=60) as http:
            async with streamable_http_client(chromium_desktop.url(8122, "/mcp"), http_client=http,
                                              terminate_on_close=False) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = {tool.name for tool in (await session.list_tools()).tools}
                    shot = await session.call_tool("browser_snapshot", {})
                    assert not shot.isError, shot.content
                    snapshot = shot.content[0].text
        return title, tools, snapshot

    title, tools, snapshot = asyncio.run(drive())
    assert title == "Container start page"
    assert {"browser_snapshot", "browser_act", "desktop_click", "desktop_screenshot"} <= tools
    assert 'button "' in snapshot and "[ref=" in snapshot
