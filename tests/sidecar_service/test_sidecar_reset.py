"""POST /reset with real Chromium on a real X display: a fresh profile on the given tabs, also
when desktopd's POST /api/v1/reset asks for it."""

from __future__ import annotations

import asyncio
import shutil
import tempfile

import pytest

from sidecar.state.profiles import ProfileStore
from testbed.desktopd import start_desktopd

from .support import SidecarProcess, serve_pages

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

# The title says what this profile's localStorage holds; ?set stores a value first.
STORE_PAGE = """<!doctype html><title>loading</title><script>
if (location.search === '?set') localStorage.setItem('k', 'kept');
document.title = 'stored=' + (localStorage.getItem('k') || 'none');
</script>"""


async def titles(sidecar: SidecarProcess) -> list[str]:
    status, tabs = await sidecar.get("/tabs")
    assert status == 200, tabs
    return [tab["title"] for tab in tabs]


async def test_reset_gives_a_fresh_profile_on_the_new_urls(chromium: str, xvfb) -> None:
    runner, port = await serve_pages({"/store": STORE_PAGE, "/other": "<title>other</title>"})
    base = f"http://127.0.0.1:{port}"
    profiles = tempfile.mkdtemp(prefix="reset-profiles-")
    sidecar = await SidecarProcess.start(["--display", xvfb.display, base + "/store?set"],
                                         env={"DISPLAY": xvfb.display, "SIDECAR_PROFILES_DIR": profiles})
    desktopd = None
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        _, tabs = await sidecar.get("/tabs")
        for url in (base + "/store?set", base + "/store"):
            status, _ = await sidecar.request("POST", f"/tabs/{tabs[0]['id']}/navigate", json={"url": url})
            assert status == 200
        assert await titles(sidecar) == ["stored=kept"]   # the profile keeps it across pages
        _, before = await sidecar.get("/health")

        status, body = await sidecar.request("POST", "/reset", json={"urls": [base + "/store", base + "/other"]})
        assert status == 200, body
        assert [t["url"] for t in body["tabs"]] == [base + "/store", base + "/other"]
        assert [t["title"] for t in body["tabs"]] == ["stored=none", "other"]   # storage is gone
        # a new browser context in the same Chromium (no launch)
        assert (body["pid"], body["isolation"]) == (before["pid"], "context"), body
        assert {"context", "window", "close_previous", "load"} <= set(body["timings"]), body
        _, after = await sidecar.get("/health")
        assert after["status"] == "ok" and after["restarts"] == before["restarts"]

        # isolation=process: a new Chromium on a fresh on-disk profile
        status, body = await sidecar.request("POST", "/reset", json={"urls": [base + "/store?set"],
                                                                     "isolation": "process"})
        assert status == 200, body
        assert (body["isolation"], body["tabs"][0]["title"]) == ("process", "stored=kept"), body
        assert body["pid"] != before["pid"] and {"stop", "launch", "load"} <= set(body["timings"])
        status, body = await sidecar.request("POST", "/reset", json={"urls": [base + "/store"]})
        assert (status, body["isolation"], body["tabs"][0]["title"]) == (200, "context", "stored=none"), body

        # desktopd asks the sidecar for the same (DESKTOPD_SIDECAR_URL set)
        loop = asyncio.get_running_loop()
        desktopd = await loop.run_in_executor(None, lambda: start_desktopd(
            xvfb.display, env={"DESKTOPD_SIDECAR_URL": sidecar.base_url}))
        resp = await loop.run_in_executor(None, lambda: desktopd.request(
            "POST", "/api/v1/reset", json={"urls": [base + "/other"], "close_windows": False}))
        assert resp.status_code == 200, resp.text
        answer = resp.json()
        assert [t["url"] for t in answer["browser"]["tabs"]] == [base + "/other"]
        assert "browser" in answer["timings"]
        refused = await loop.run_in_executor(None, lambda: desktopd.request(
            "POST", "/api/v1/reset", json={"urls": ["ftp://example.invalid/"]}))
        assert refused.status_code == 422 and refused.json()["field"] == "urls[0]", refused.text

        # A named profile through desktopd; one another browser holds is a 409 naming it.
        resp = await loop.run_in_executor(None, lambda: desktopd.request(
            "POST", "/api/v1/reset", json={"urls": [base + "/store"], "profile": "p1", "close_windows": False}))
        assert resp.status_code == 200 and resp.json()["browser"]["profile"] == "p1", resp.text
        held = ProfileStore(profiles).lease("held")      # as another sidecar's browser would
        try:
            resp = await loop.run_in_executor(None, lambda: desktopd.request(
                "POST", "/api/v1/reset", json={"profile": "held", "close_windows": False}))
            assert resp.status_code == 409, resp.text
            assert (resp.json()["error"], resp.json()["field"]) == ("profile_in_use", "profile")
        finally:
            held.release()
        _, health = await sidecar.get("/health")
        assert health["profile"] == "p1"                 # the refused reset left the browser as it was
    finally:
        if desktopd is not None:
            desktopd.stop()
        assert await sidecar.stop() == 0, sidecar.log()
        await runner.cleanup()
        shutil.rmtree(profiles, ignore_errors=True)
