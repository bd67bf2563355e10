"""--expose-cdp: Chromium's DevTools endpoint for scripts that drive it directly, behind the
sidecar's token and browser guard, with its WebSocket URLs pointing at the proxy. Real Chromium,
a real CDP client over the proxy."""

from __future__ import annotations

import asyncio
import json
import socket

import aiohttp
import pytest

from .support import SidecarProcess, Sites

pytestmark = pytest.mark.chromium

TOKEN = "proxy-test-token-1234567890"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
async def exposed(chromium: str, sites: Sites, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    port = _free_port()
    sidecar = await SidecarProcess.start(["--headless", "--expose-cdp", str(port),
                                          "--token-file", str(token_file), sites["main"]])
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        yield sidecar, port
    finally:
        await sidecar.stop()


async def test_the_listing_needs_the_token_and_points_at_the_proxy(exposed) -> None:
    sidecar, port = exposed
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/json/version") as response:
            assert response.status == 401
        async with http.get(base + "/json/version", headers=AUTH) as response:
            assert response.status == 200
            version = await response.json()
        assert version["webSocketDebuggerUrl"].startswith(f"ws://127.0.0.1:{port}/devtools/browser/")
        async with http.get(base + "/json/list", headers=AUTH) as response:
            pages = [t for t in await response.json() if t["type"] == "page"]
        assert pages and all(t["webSocketDebuggerUrl"].startswith(f"ws://127.0.0.1:{port}/devtools/page/")
                             for t in pages)
        # The token in the URL, for clients that cannot send a header: the sockets handed out
        # carry it, and the exposed port's access log writes it REDACTED.
        async with http.get(base + "/json/version", params={"token": TOKEN}) as response:
            assert (await response.json())["webSocketDebuggerUrl"] == \
                f"ws://127.0.0.1:{port}/devtools/browser/desktopd?token={TOKEN}"
        await sidecar.wait_for_line(r"GET /json/version\?token=REDACTED", 10)
        assert not [line for line in sidecar.lines if TOKEN in line]
        # A web page cannot use it, token or not (the browser guard), nor open tabs through it.
        async with http.get(base + "/json/version", headers={**AUTH, "Origin": "https://evil.example"}) as response:
            assert response.status == 403
        async with http.put(base + "/json/new?about:blank", headers=AUTH) as response:
            assert response.status in (404, 405)
    # The API's /targets and /tabs name the same sockets: the original documented them as one
    # list of targets.
    status, targets = await sidecar.get("/targets", headers=AUTH)
    assert status == 200
    tab = next(t for t in targets if t["type"] == "page")
    assert tab["webSocketDebuggerUrl"] == f"ws://127.0.0.1:{port}/devtools/page/{tab['id']}"
    status, tabs = await sidecar.get("/tabs", headers=AUTH)
    assert status == 200 and tabs
    sockets = {t["id"]: t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page"}
    assert {t["id"]: t["webSocketDebuggerUrl"] for t in tabs} == sockets
    status, one = await sidecar.get(f"/tabs/{tab['id']}", headers=AUTH)
    assert status == 200 and one["webSocketDebuggerUrl"] == sockets[tab["id"]]


async def test_a_cdp_client_drives_the_browser_through_the_proxy(exposed) -> None:
    sidecar, port = exposed
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        async with http.get(f"http://127.0.0.1:{port}/json/version", headers=AUTH) as response:
            browser_url = (await response.json())["webSocketDebuggerUrl"]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(browser_url)
        assert refused.value.status == 401
        async with http.ws_connect(browser_url, headers=AUTH, max_msg_size=0) as socket_:
            reply = await _call(socket_, 1, "Browser.getVersion")
            assert reply["result"]["product"].startswith(("Chrome/", "HeadlessChrome/"))
            # A page session through the same socket: evaluate in the start page.
            targets = (await _call(socket_, 2, "Target.getTargets"))["result"]["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            attached = await _call(socket_, 3, "Target.attachToTarget",
                                   {"targetId": page["targetId"], "flatten": True})
            evaluated = await _call(socket_, 4, "Runtime.evaluate",
                                    {"expression": "6 * 7", "returnByValue": True},
                                    session_id=attached["result"]["sessionId"])
            assert evaluated["result"]["result"]["value"] == 42
    # The sidecar's own API still works beside it.
    status, health = await sidecar.get("/health")
    assert status == 200 and health["status"] == "ok"


async def _call(socket_: aiohttp.ClientWebSocketResponse, call_id: int, method: str,
                params: dict | None = None, session_id: str | None = None) -> dict:
    """One CDP call over the socket: its reply (events in between are skipped), bounded."""
    message: dict = {"id": call_id, "method": method, "params": params or {}}
    if session_id is not None:
        message["sessionId"] = session_id
    await socket_.send_str(json.dumps(message))
    for _ in range(200):
        reply = json.loads(await asyncio.wait_for(socket_.receive_str(), 15))
        if reply.get("id") == call_id:
            return reply
    raise AssertionError(f"no reply to {method} through the proxy")
