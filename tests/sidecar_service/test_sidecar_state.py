"""Named profiles and storage state with real (headless) Chromium and a local login site: logged
in after a reset on the same profile and after the sidecar restarts, not with the default
throwaway profile; one browser per profile; a storage state exported from one sidecar logs
another in; cookies stay secret (0600 files, never in the log, refused to other sites' pages)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sidecar.server.state_routes import PROFILES_RESULT

from .login_site import LoginSite
from .support import SidecarProcess

pytestmark = [pytest.mark.chromium]

TOKEN = "state-test-token"


async def start_sidecar(profiles: str) -> SidecarProcess:
    sidecar = await SidecarProcess.start(["--headless", "about:blank"],
                                         env={"SIDECAR_PROFILES_DIR": profiles, "SIDECAR_TOKEN": TOKEN})
    await sidecar.wait_for_line("Chromium ready", 60)
    return sidecar


def auth(**headers: str) -> dict[str, dict[str, str]]:
    return {"headers": {"Authorization": f"Bearer {TOKEN}", **headers}}


async def reset(sidecar: SidecarProcess, url: str, profile: str | None = None) -> tuple[int, dict]:
    body: dict[str, object] = {"urls": [url]}
    if profile is not None:
        body["profile"] = profile
    return await sidecar.request("POST", "/reset", json=body, **auth())


async def account_title(sidecar: SidecarProcess, site: LoginSite, profile: str | None = None) -> str:
    status, body = await reset(sidecar, site.base + "/account", profile)
    assert status == 200, body
    assert body["profile"] == profile
    return body["tabs"][0]["title"]


async def test_a_named_profile_keeps_the_login_and_the_default_does_not(tmp_path: Path, chromium: str) -> None:
    site = LoginSite()
    await site.start()
    profiles = str(tmp_path / "profiles")
    first = await start_sidecar(profiles)
    second: SidecarProcess | None = None
    try:
        status, body = await reset(first, site.base + "/session?user=alice", "alice")
        assert status == 200 and body["tabs"][0]["title"] == "logged in", body
        assert await account_title(first, site, "alice") == "cookie=alice storage=alice"
        _, health = await first.get("/health")
        assert health["profile"] == "alice"
        assert stat.S_IMODE(os.stat(os.path.join(profiles, "alice")).st_mode) == 0o700

        # Another sidecar on the same directory: the profile is this browser's (409), and stays.
        second = await start_sidecar(profiles)
        status, body = await reset(second, site.base + "/account", "alice")
        assert (status, body["error"], body["field"]) == (409, "profile_in_use", "profile"), body
        status, body = await second.request("DELETE", "/profiles/alice", **auth())
        assert (status, body["error"]) == (409, "profile_in_use"), body
        status, listing = await second.get("/profiles", **auth())
        assert status == 200 and listing["current"] is None
        PROFILES_RESULT.model.validate(listing)               # what the document says it is
        assert [(p["name"], p["in_use"]) for p in listing["profiles"]] == [("alice", True)]

        # The default profile is a fresh one: logged out. The named one again: logged in.
        assert await account_title(first, site) == "cookie=none storage=none"
        assert await account_title(first, site, "alice") == "cookie=alice storage=alice"

        # The sidecar (and its Chromium) restarts: the profile is on disk, still logged in.
        assert await first.stop() == 0, first.log()
        first = await start_sidecar(profiles)
        assert await account_title(first, site, "alice") == "cookie=alice storage=alice"

        # Storage state: exported here, loaded into the other sidecar's fresh profile.
        status, state = await first.get("/storage-state", **auth())
        assert status == 200, state
        assert set(state) == {"cookies", "origins"}
        [cookie] = [c for c in state["cookies"] if c["name"] == "session"]
        assert cookie["value"] in site.sessions and cookie["domain"] == "127.0.0.1"
        assert list(cookie) == ["name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"]
        assert cookie["httpOnly"] is True and cookie["expires"] > 0 and cookie["sameSite"] == "Lax"
        assert state["origins"] == [{"origin": site.base, "localStorage": [{"name": "user", "value": "alice"}]}]
        assert await account_title(second, site) == "cookie=none storage=none"
        status, loaded = await second.request("POST", "/storage-state", json=state, **auth())
        assert status == 200 and loaded["loaded"] == {"cookies": len(state["cookies"]), "origins": 1,
                                                       "local_storage_items": 1}, loaded
        _, tabs = await second.get("/tabs", **auth())
        status, _ = await second.request("POST", f"/tabs/{tabs[0]['id']}/navigate",
                                         json={"url": site.base + "/account"}, **auth())
        _, tabs = await second.get("/tabs", **auth())
        assert tabs[0]["title"] == "cookie=alice storage=alice"

        # The profile remembers where it has storage: a file only its user reads.
        remembered = os.path.join(profiles, "alice", "desktopd-storage-origins.json")
        assert stat.S_IMODE(os.stat(remembered).st_mode) == 0o600

        # Secrets: refused to other sites' pages and DNS-rebinding hosts, and to no token.
        for headers, expected in (({"Origin": "http://evil.example"}, 403),
                                  ({"Sec-Fetch-Site": "cross-site"}, 403),
                                  ({"Host": "evil.example"}, 421)):
            status, body = await first.get("/storage-state", **auth(**headers))
            assert status == expected, (headers, body)
        status, _ = await first.get("/storage-state")
        assert status == 401
        for sidecar in (first, second):
            assert not any(cookie["value"] in line for line in sidecar.lines), "a cookie value was logged"

        # Deleting: not the profile in use; then, on the throwaway one, gone.
        status, body = await first.request("DELETE", "/profiles/alice", **auth())
        assert status == 409, body
        assert await account_title(first, site) == "cookie=none storage=none"
        status, body = await first.request("DELETE", "/profiles/alice", **auth())
        assert status == 200 and not os.path.exists(os.path.join(profiles, "alice")), body
        status, body = await first.request("DELETE", "/profiles/alice", **auth())
        assert (status, body["error"]) == (404, "profile_not_found"), body
    finally:
        if second is not None:
            await second.stop()
        await first.stop()
        await site.stop()


async def test_bad_profile_names_and_storage_states_are_422s_naming_the_field(tmp_path: Path, chromium: str) -> None:
    sidecar = await start_sidecar(str(tmp_path / "profiles"))
    try:
        for name in ("../etc", ".hidden", "a/b", "x" * 65, ""):
            status, body = await sidecar.request("POST", "/reset", json={"profile": name}, **auth())
            assert (status, body.get("field")) == (422, "profile"), (name, body)
        status, body = await sidecar.request("DELETE", "/profiles/.hidden", **auth())
        assert (status, body.get("field")) == (422, "name"), body
        bad = {"cookies": [{"name": "a", "value": "secret-value", "domain": "example.org", "sameSite": "None"}]}
        status, body = await sidecar.request("POST", "/storage-state", json=bad, **auth())
        assert (status, body.get("field")) == (422, "cookies[0].sameSite"), body
        assert "secret-value" not in str(body)
        bad = {"origins": [{"origin": "https://example.org/path", "localStorage": []}]}
        status, body = await sidecar.request("POST", "/storage-state", json=bad, **auth())
        assert (status, body.get("field")) == (422, "origins[0].origin"), body
        assert not os.path.exists(tmp_path / "profiles")    # nothing was created for them
    finally:
        await sidecar.stop()


async def test_storage_state_goes_both_ways_with_playwright(tmp_path: Path, chromium: str) -> None:
    """Playwright's own storageState loads here, and ours loads into a Playwright context: the
    format is Playwright's, field for field (its newer versions' fields included)."""
    from playwright.async_api import async_playwright

    site = LoginSite()
    await site.start()
    sidecar = await start_sidecar(str(tmp_path / "profiles"))
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            try:
                theirs = await browser.new_context()
                page = await theirs.new_page()
                await page.goto(site.base + "/session?user=bob")
                status, loaded = await sidecar.request("POST", "/storage-state", json=await theirs.storage_state(),
                                                       **auth())
                assert status == 200, loaded
                _, tabs = await sidecar.get("/tabs", **auth())
                await sidecar.request("POST", f"/tabs/{tabs[0]['id']}/navigate", json={"url": site.base + "/account"},
                                      **auth())
                _, tabs = await sidecar.get("/tabs", **auth())
                assert tabs[0]["title"] == "cookie=bob storage=bob"

                status, ours = await sidecar.get("/storage-state", **auth())
                assert status == 200, ours
                mine = await browser.new_context(storage_state=ours)
                page = await mine.new_page()
                await page.goto(site.base + "/account")
                assert await page.title() == "cookie=bob storage=bob"
                assert await mine.storage_state() == ours
            finally:
                await browser.close()
    finally:
        await sidecar.stop()
        await site.stop()
