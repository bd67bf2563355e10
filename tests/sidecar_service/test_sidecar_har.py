"""HAR capture with real (headless) Chromium: a page with an XHR, a redirect, a failed request
and a body over the cap gives HAR 1.2 (validated against the specification's schema) that says
what the page did; capture per tab and whole; no capture, no stop."""

from __future__ import annotations

import asyncio
from datetime import datetime

import jsonschema
import pytest

from .har_site import BIG_BYTES, HAR_SCHEMA, HarSite
from .support import SidecarProcess

pytestmark = [pytest.mark.chromium]


async def wait_for_title(sidecar: SidecarProcess, tab: str, title: str, timeout: float = 20) -> None:
    """Until the tab's title is ``title`` (the page sets it when its requests settled)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        status, body = await sidecar.get(f"/tabs/{tab}")
        if status == 200 and body["title"] == title:
            return
        assert loop.time() < deadline, f"the tab's title stayed {body.get('title')!r}"
        await asyncio.sleep(0.05)


def by_path(har: dict, site: HarSite) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for entry in har["log"]["entries"]:
        url = entry["request"]["url"]
        key = url[len(site.base):] if url.startswith(site.base) else url
        found.setdefault(key, []).append(entry)
    return found


async def test_a_page_s_traffic_as_har(chromium: str) -> None:
    site = HarSite()
    await site.start()
    sidecar = await SidecarProcess.start(["--headless", "about:blank"])
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        status, body = await sidecar.request("POST", "/har/stop", json={})
        assert (status, body["error"]) == (409, "har_state"), body
        status, started = await sidecar.request("POST", "/har/start",
                                                json={"content": True, "max_body_bytes": 1024})
        assert status == 200 and started["capturing"] == "all", started
        status, again = await sidecar.request("POST", "/har/start", json={})
        assert (status, again["error"]) == (409, "har_state"), again

        _, tabs = await sidecar.get("/tabs")
        first = tabs[0]["id"]
        status, _ = await sidecar.request("POST", f"/tabs/{first}/navigate", json={"url": site.base + "/page"})
        assert status == 200
        await wait_for_title(sidecar, first, "done")
        # A second tab, opened while capturing every tab, is captured too (from its attach on:
        # Chromium starts a URL given to a new tab before the tab can be told to report).
        status, second = await sidecar.request("POST", "/tabs", json={})
        assert status == 201
        status, _ = await sidecar.request("POST", f"/tabs/{second['id']}/navigate",
                                          json={"url": site.base + "/api/final"})
        assert status == 200
        status, so_far = await sidecar.get("/har", params={"since": 1})
        assert status == 200 and so_far["next"] > len(so_far["log"]["entries"]) >= 6

        # Stopping one tab answers its entries; the other tab's stay captured.
        status, har = await sidecar.request("POST", "/har/stop", json={"tab": first})
        assert status == 200, har
        jsonschema.validate(har, HAR_SCHEMA)
        assert {entry["_tab"] for entry in har["log"]["entries"]} == {first}
        entries = by_path(har, site)
        [document] = entries["/page"]
        [page] = har["log"]["pages"]
        assert document["pageref"] == page["id"] and all(e["pageref"] == page["id"] for e in har["log"]["entries"])
        assert document["response"]["status"] == 200 and document["_resourceType"] == "Document"
        assert page["pageTimings"]["onLoad"] > 0 and page["_tab"] == first
        datetime.fromisoformat(document["startedDateTime"])

        [xhr] = entries["/api/data?x=1&y=two"]
        assert xhr["_resourceType"] == "XHR" and xhr["response"]["status"] == 200
        assert xhr["request"]["queryString"] == [{"name": "x", "value": "1"}, {"name": "y", "value": "two"}]
        assert xhr["response"]["content"]["mimeType"] == "application/json"
        assert xhr["response"]["content"]["text"] == '{"answer": 42}'
        assert {"name": "seen", "value": "yes", "path": "/", "httpOnly": False, "secure": False} \
            in xhr["response"]["cookies"]

        [hop] = entries["/redirect"]
        assert hop["response"]["status"] == 302
        assert hop["response"]["redirectURL"] == site.base + "/api/final"
        [final] = entries["/api/final"]
        assert final["response"]["status"] == 200 and final["response"]["content"]["text"] == "final"
        assert final["_requestId"] == hop["_requestId"] and final["_seq"] > hop["_seq"]

        [failed] = entries[site.closed + "/nothing"]
        assert failed["response"]["status"] == 0
        assert failed["response"]["_error"] == "net::ERR_CONNECTION_REFUSED"

        [big] = entries["/api/big"]
        assert big["response"]["content"]["size"] == BIG_BYTES and "text" not in big["response"]["content"]
        assert "max_body_bytes 1024" in big["response"]["content"]["comment"]
        assert [e["_seq"] for e in har["log"]["entries"]] == sorted(e["_seq"] for e in har["log"]["entries"])

        status, rest = await sidecar.request("POST", "/har/stop", json={})
        assert status == 200
        jsonschema.validate(rest, HAR_SCHEMA)
        assert {e["_tab"] for e in rest["log"]["entries"]} == {second["id"]}
        assert [e["request"]["url"] for e in rest["log"]["entries"]] == [site.base + "/api/final"]
        status, body = await sidecar.request("POST", "/har/stop", json={})
        assert status == 409, body
    finally:
        await sidecar.stop()
        await site.stop()
