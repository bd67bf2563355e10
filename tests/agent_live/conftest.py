"""Fixtures of the live-browser agent surfaces (/cdp, /playwright, MCP): a real sidecar with a
real Chromium on a page that records what reaches it, with a token."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from testbed.capability import require_chromium
from tests.sidecar_service.support import SidecarProcess, serve_pages

TOKEN = "agent-live-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# Every click on the page is recorded (target id, trusted or not), so tests read what happened.
FORM_PAGE = """<!doctype html><title>Form</title>
<style>body{margin:0} button{position:absolute;left:200px;top:150px;width:160px;height:60px}</style>
<h1>Order form</h1><button id="submit">Submit order</button><input id="name" style="position:absolute;top:300px">
<script>
window.clicks = [];
addEventListener('click', e => clicks.push({id: e.target.id, trusted: e.isTrusted}), true);
</script>"""
OTHER_PAGE = "<!doctype html><title>Other</title><p>other page</p>"


@pytest.fixture
def chromium() -> str:
    return require_chromium()


@pytest.fixture
async def pages() -> AsyncIterator[dict[str, str]]:
    runner, port = await serve_pages({"/form": FORM_PAGE, "/other": OTHER_PAGE})
    base = f"http://127.0.0.1:{port}"
    try:
        yield {"form": base + "/form", "other": base + "/other"}
    finally:
        await runner.cleanup()


async def start_sidecar(tmp_path, *args: str, env: dict[str, str] | None = None) -> SidecarProcess:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    sidecar = await SidecarProcess.start(["--token-file", str(token_file), *args], env=env)
    await sidecar.wait_for_line("Chromium ready", 60)
    return sidecar


async def loaded(sidecar: SidecarProcess, url: str) -> None:
    """The front tab with ``url`` loaded (its load event fired): "Chromium ready" comes with the
    first tab, not with its page."""
    status, tabs = await sidecar.get("/tabs", headers=AUTH)
    assert status == 200, tabs
    status, tab = await sidecar.request("POST", f"/tabs/{tabs[0]['id']}/navigate",
                                        json={"url": url, "wait": "load"}, headers=AUTH)
    assert status == 200, tab


@pytest.fixture
async def sidecar(chromium: str, pages: dict[str, str], tmp_path) -> AsyncIterator[SidecarProcess]:
    """A headless sidecar with the form page loaded in its one tab."""
    process = await start_sidecar(tmp_path, "--headless", pages["form"])
    try:
        await loaded(process, pages["form"])
        yield process
    finally:
        await process.stop()
