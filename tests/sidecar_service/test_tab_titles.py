"""Titles a page sets from script (``document.title = ...``) show up in /tabs, /tabs/{id},
/targets and /layout at once, although Chromium sends no target event for them."""

from __future__ import annotations

import asyncio
import socket

import pytest

from sidecar.cdp.connection import CDPConnection

from .support import Sites
from .test_sidecar_chromium import start_sidecar

pytestmark = pytest.mark.chromium


async def test_a_title_set_by_script_is_reported_everywhere(chromium: str, sites: Sites) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sidecar = await start_sidecar(sites, "--cdp-port", str(port))
    try:
        _, tabs = await sidecar.get("/tabs")
        tab = tabs[0]
        # Loaded for sure (a start URL may still be loading): script must not race the parser.
        status, loaded = await sidecar.request("POST", f"/tabs/{tab['id']}/navigate",
                                               json={"url": sites["main"]})
        assert status == 200 and loaded["title"] == "Main", loaded
        page = await CDPConnection.connect(f"ws://127.0.0.1:{port}/devtools/page/{tab['id']}")
        try:
            reply = await page.send("Runtime.evaluate", {
                "expression": "document.title = 'Retitled by script'; document.title",
                "returnByValue": True})
            assert reply["result"]["value"] == "Retitled by script"
        finally:
            await page.close()
        # The renderer tells the browser process about the new title asynchronously: a moment
        # after the script ran, every endpoint must show it. Bounded.
        for _ in range(100):
            _, tabs = await sidecar.get("/tabs")
            if tabs[0]["title"] == "Retitled by script":
                break
            await asyncio.sleep(0.05)
        assert tabs[0]["title"] == "Retitled by script", tabs
        _, one = await sidecar.get(f"/tabs/{tab['id']}")
        assert one["title"] == "Retitled by script", one
        _, targets = await sidecar.get("/targets")
        assert [t["title"] for t in targets if t["id"] == tab["id"]] == ["Retitled by script"]
        status, layout = await sidecar.get("/layout", params={"tab": tab["id"]})
        assert status == 200 and layout["tabs"][0]["title"] == "Retitled by script", layout
    finally:
        await sidecar.stop()
