"""The kit's endpoints as both clients read them (unit: a small aiohttp app answers), and what the
kit costs the sidecar, which uses its async client inside the Chromium image."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from desktopd_kit import AsyncDesktop, Desktop, DesktopError
from desktopd_kit.api import DesktopApi
from testbed.served_app import served


@pytest.fixture
async def echo_url() -> AsyncIterator[str]:
    """Answers every request with what it received: method, path, query, body, token."""
    async def echo(request: web.Request) -> web.Response:
        body = await request.json() if request.can_read_body else None
        return web.json_response({"method": request.method, "path": request.path,
                                  "query": dict(request.query), "body": body,
                                  "token": request.headers.get("Authorization")})

    async with served([web.route("*", "/{tail:.*}", echo)]) as url:
        yield url


async def test_the_async_client_runs_each_endpoint_as_a_coroutine(echo_url: str) -> None:
    address = {"url": echo_url + "/late"}     # a sidecar address known only once serving
    async with AsyncDesktop(echo_url, "t0k", sidecar_url=lambda: address["url"]) as client:
        assert await client.tap(3, 4) == {"method": "POST", "path": "/api/v1/tablet", "query": {},
                                          "body": {"action": "tap", "x": 3, "y": 4}, "token": "Bearer t0k"}
        assert (await client.focus_window(7))["path"] == "/api/v1/windows/7/focus"
        assert (await client.history("back", tab="T1"))["body"] == {"tab": "T1"}
        address["url"] = echo_url
        played = await client.playwright("return 1", timeout_s=5)
        assert (played["path"], played["body"]) == ("/playwright", {"code": "return 1", "timeout_s": 5})
        text = await client.snapshot(tab="T1", interactive=True)
        assert '"query": {"tab": "T1", "interactive": "true"}' in text
        with pytest.raises(DesktopError) as caught:
            await client.close_tab("../x")
        assert caught.value.code == "invalid_argument"


async def test_the_sync_client_runs_the_same_descriptions(echo_url: str) -> None:
    def calls() -> tuple[dict, dict]:
        with Desktop(echo_url) as client:
            return client.move(1, 2), client.vision_click("OK", exact=True)
    moved, clicked = await asyncio.to_thread(calls)
    assert (moved["path"], moved["body"]) == ("/api/v1/tablet", {"action": "move", "x": 1, "y": 2})
    assert (clicked["path"], clicked["body"]) == ("/api/v1/vision/click", {"text": "OK", "exact": True})


def test_an_endpoint_read_on_the_class_keeps_its_documentation() -> None:
    assert "one event or a batch" in (DesktopApi.pointer.__doc__ or "")


def test_the_kits_client_pulls_no_heavy_module_into_the_sidecar() -> None:
    """The Chromium image has aiohttp, not requests, numpy, gymnasium or Pillow for the kit."""
    code = ("import sys, sidecar.agent.pointer, desktopd_kit; "
            "print(sorted(m for m in ('requests', 'numpy', 'gymnasium', 'PIL') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
