"""browser-use (PyPI, no model) on a fresh Chromium container, by its documented ``cdp_url``
with the token in the URL: it keeps the image's start page (served over http on the
container's loopback; a host-less file: page it used to close, which ended the browser), reads
the DOM state, clicks the start page's button by its index, and the browser it leaves is the
one it found."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.async_api import async_playwright

from testbed.capability import require

from .support import ROOT, Desktop, remove, start_desktop

BROWSER_USE_PYTHON = ROOT / ".venv-browser-use" / "bin" / "python"
BROWSER_USE_CLICK = Path(__file__).with_name("browser_use_click.py")
START_PAGE = "http://127.0.0.1:8124/start.html"


@pytest.fixture(scope="module")
def fresh_chromium(images: dict[str, str]) -> Iterator[Desktop]:
    """The Chromium image as a user runs it: its own start page, a token."""
    tc, running = start_desktop(images["chromium"], ports=(8080, 8122))
    try:
        yield running
    finally:
        remove(tc)


def browser_use(*args: str) -> dict:
    """browser_use_click.py's JSON: cdp_url, label[, reset_url, token]."""
    require(BROWSER_USE_PYTHON.exists(), "browser-use in .venv-browser-use (scripts/lib.sh ensure_cdp_clients)")
    # Its telemetry off: nothing but the container is to be contacted.
    done = subprocess.run([str(BROWSER_USE_PYTHON), str(BROWSER_USE_CLICK), *args],
                          capture_output=True, text=True, timeout=200,
                          env={**os.environ, "ANONYMIZED_TELEMETRY": "false"})
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_browser_use_reads_the_start_page_and_clicks_by_index(fresh_chromium: Desktop) -> None:
    pid = fresh_chromium.get(8122, "/health").json()["pid"]
    cdp_url = fresh_chromium.url(8122, f"/cdp?token={fresh_chromium.token}")
    result = browser_use(cdp_url, "Click me")
    assert result["url"] == START_PAGE, result
    assert "Click me" in result["before"].values() and "Clicked" in result["after"].values(), result
    health = fresh_chromium.get(8122, "/health").json()
    assert health["status"] == "ok" and health["pid"] == pid, health
    tabs = fresh_chromium.get(8122, "/tabs").json()
    assert START_PAGE in [tab["url"] for tab in tabs], tabs
    # The token given in the URL is in no log of the container (the services log to its stdout).
    logs = fresh_chromium.container.logs().decode("utf-8", "replace")
    assert "GET /cdp/json/version?token=REDACTED" in logs
    assert fresh_chromium.token not in logs


def test_a_client_closing_the_last_page_leaves_the_browser_running(fresh_chromium: Desktop) -> None:
    """Chromium on a desktop quits when its last tab closes: a CDP client's page.close() of the
    only page gets a blank neighbour first, as DELETE /tabs/{id} does."""
    for tab in fresh_chromium.get(8122, "/tabs").json()[1:]:    # the one tab left is the last
        response = requests.delete(fresh_chromium.url(8122, f"/tabs/{tab['id']}"),
                                   headers=fresh_chromium.headers(), timeout=30)
        assert response.status_code == 200, response.text
    pid = fresh_chromium.get(8122, "/health").json()["pid"]

    async def close_the_only_page() -> None:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(
                fresh_chromium.url(8122, "/cdp"), headers=fresh_chromium.headers(), timeout=30_000)
            try:
                (page,) = browser.contexts[0].pages
                await page.close()
                assert browser.is_connected()
            finally:
                await browser.close()

    asyncio.run(close_the_only_page())
    health = fresh_chromium.get(8122, "/health").json()
    assert health["status"] == "ok" and health["pid"] == pid, health
    assert [tab["url"] for tab in fresh_chromium.get(8122, "/tabs").json()] == ["about:blank"]


def test_browser_use_reconnects_to_the_restarted_browser_at_the_same_url(fresh_chromium: Desktop) -> None:
    """The sidecar restarts Chromium under a new id (here by POST /reset; a crash alike): the
    session browser-use keeps reconnects at the socket URL discovery gave it and clicks again."""
    # isolation "process": a new Chromium (a context reset keeps the browser and its id).
    started = fresh_chromium.post(8122, "/reset", {"isolation": "process"})   # the start page
    assert started.status_code == 200, started.text
    pid = started.json()["pid"]
    result = browser_use(fresh_chromium.url(8122, f"/cdp?token={fresh_chromium.token}"), "Click me",
                         fresh_chromium.url(8122, "/reset"), str(fresh_chromium.token))
    assert "Clicked" in result["after"].values() and "Clicked" in result["restarted"].values(), result
    assert fresh_chromium.get(8122, "/health").json()["pid"] != pid
