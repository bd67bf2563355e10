"""A request line or a header longer than aiohttp's parser takes is refused before any handler
runs; both daemons answer it in their JSON error shape, not aiohttp's plain text: desktopd on
this venv's aiohttp, the sidecar on Debian's (the images' aiohttp 3.8)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from urllib.parse import urlsplit

import pytest

from testbed.capability import debian_python_has, require, require_chromium
from testbed.desktopd import start_desktopd
from testbed.xvfb import start_xvfb
from tests.sidecar_service.support import SidecarProcess

from .test_slow_clients import read_response

# aiohttp's parser stops at 8,190 bytes a line or header field.
TOO_LONG = "a" * 20_000
OVERSIZED = {
    "request line": f"GET /health?q={TOO_LONG} HTTP/1.1\r\nHost: {{host}}\r\n\r\n",
    "header": f"GET /health HTTP/1.1\r\nHost: {{host}}\r\nX-Long: {TOO_LONG}\r\n\r\n",
}


def send_raw(base_url: str, request: str) -> tuple[str, dict]:
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=15) as sock:
        sock.sendall(request.format(host=parts.netloc).encode())
        head, body = read_response(sock)
    content_type = next(line for line in head.split("\r\n") if line.lower().startswith("content-type:"))
    assert "application/json" in content_type, head
    return head, json.loads(body)


def check_json_400s(base_url: str) -> None:
    for what, request in OVERSIZED.items():
        head, body = send_raw(base_url, request)
        assert head.split(" ", 2)[1] == "400", (what, head)
        assert body["error"] == "bad_request" and "8190 bytes" in body["detail"], (what, body)


@pytest.mark.x11
def test_desktopd_answers_an_oversized_request_in_json(tmp_path) -> None:
    xvfb = start_xvfb(640, 480, log_path=str(tmp_path / "xvfb.log"))
    server = start_desktopd(xvfb.display)
    try:
        check_json_400s(server.url)
        # The connection was refused, not the server: the next request is served.
        assert server.request("GET", "/health").status_code == 200
    finally:
        server.stop()
        xvfb.stop()


@pytest.mark.chromium
async def test_the_sidecar_answers_an_oversized_request_in_json() -> None:
    require_chromium()
    require(os.path.exists("/usr/bin/python3") and debian_python_has("aiohttp"),
            "Debian's python3-aiohttp (the images' aiohttp)")
    sidecar = await SidecarProcess.start(["--headless", "about:blank"], python="/usr/bin/python3")
    try:
        await asyncio.to_thread(check_json_400s, sidecar.base_url)
    finally:
        await sidecar.stop()
