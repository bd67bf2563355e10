"""/layout over HTTP from the real sidecar: ETag and If-None-Match (304), gzip only when asked,
a changed page gives a new body and ETag, and Server-Timing says where the time went."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import aiohttp
import pytest

from testbed.children import start_sidecar

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


async def test_etag_304_and_gzip_on_request(xvfb, need_browser, page_server):
    sidecar = await start_sidecar(xvfb.display, page_server.url("/gen/200"))
    try:
        async with aiohttp.ClientSession(auto_decompress=False,
                                         timeout=aiohttp.ClientTimeout(total=30)) as http:
            async def get(**headers: str) -> tuple[int, Any, bytes]:
                async with http.get(sidecar.url + "/layout", headers={
                        "Accept-Encoding": "identity", **headers}) as response:
                    return response.status, response.headers.copy(), await response.read()

            async with http.get(sidecar.url + "/tabs") as response:
                tab = (await response.json())[0]["id"]
            await _navigate(http, sidecar, tab, page_server.url("/gen/200"))   # loaded: still
            status, headers, plain = await get()
            assert status == 200 and "Content-Encoding" not in headers
            assert headers["Content-Type"].startswith("application/json")
            etag = headers["ETag"]
            assert etag.startswith('"') and headers["Cache-Control"] == "no-cache"
            timing = re.fullmatch(r"layout;dur=(\d+\.\d), encode;dur=(\d+\.\d)", headers["Server-Timing"])
            assert timing and float(timing[1]) > 0, headers["Server-Timing"]
            assert json.loads(plain)["tabs"][0]["layout"]["nodeCount"] > 0

            status, headers, body = await get(**{"If-None-Match": etag})
            assert status == 304 and body == b"" and headers["ETag"] == etag

            status, headers, packed = await get(**{"Accept-Encoding": "gzip, deflate"})
            assert status == 200 and headers["Content-Encoding"] == "gzip"
            assert headers["ETag"] == etag and "Accept-Encoding" in headers["Vary"]
            assert gzip.decompress(packed) == plain and len(packed) < len(plain) / 3

            # The page changes (navigated): a new body and ETag; the old one no longer matches.
            await _navigate(http, sidecar, tab, page_server.url("/gen/260"))
            status, headers, body = await get(**{"If-None-Match": etag})
            assert status == 200 and headers["ETag"] != etag
            assert json.loads(body)["tabs"][0]["layout"]["nodeCount"] > \
                json.loads(plain)["tabs"][0]["layout"]["nodeCount"]
    finally:
        await sidecar.close()


async def _navigate(http: aiohttp.ClientSession, sidecar: Any, tab: str, url: str) -> None:
    async with http.post(f"{sidecar.url}/tabs/{tab}/navigate", json={"url": url}) as response:
        assert response.status == 200, await response.text()
