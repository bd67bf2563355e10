"""The sidecar as users run it (``python -m sidecar``) against real headless Chromium."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import pytest

from httpapi.fields import ListOf
from sidecar.server.routes import TARGET

from .support import SidecarProcess, Sites, pid_alive, wait_pid_gone

pytestmark = pytest.mark.chromium

READY = r"Chromium ready"


async def start_sidecar(sites: dict[str, str], *extra: str) -> SidecarProcess:
    sidecar = await SidecarProcess.start(
        ["--headless", "--chromium-flag=--site-per-process", *extra, sites["main"], sites["second"]])
    await sidecar.wait_for_line(READY, 60)
    return sidecar


@pytest.fixture
async def sidecar(chromium: str, sites: dict[str, str]):
    process = await start_sidecar(sites)
    try:
        yield process
    finally:
        await process.stop()


async def test_health_is_ok_with_version_pid_and_tabs(sidecar: SidecarProcess) -> None:
    status, body = await sidecar.get("/health")
    assert status == 200, body
    assert body["status"] == "ok"
    assert body["version"].startswith(("Chrome/", "HeadlessChrome/"))
    assert pid_alive(body["pid"]) and body["chromium_pid"] == body["pid"]   # the original's name too
    assert body["cdp_connected"] is True
    assert body["tabs"] == 2
    assert body["restarts"] == 0 and body["last_error"] is None


async def test_tabs_and_targets_list_the_start_urls_in_order(sidecar: SidecarProcess,
                                                             sites: dict[str, str]) -> None:
    status, body = await sidecar.get("/tabs")
    assert status == 200 and isinstance(body, list)          # the original's shape: a JSON array
    ListOf(TARGET).validate(body, "")                        # what the document says it is
    assert [t["url"] for t in body] == [sites["main"], sites["second"]]
    assert [t["index"] for t in body] == [0, 1]
    assert all(t["type"] == "page" and t["attached"] for t in body)
    status, body = await sidecar.get("/targets")
    assert status == 200 and isinstance(body, list)
    ListOf(TARGET).validate(body, "")
    pages = [t for t in body if t["type"] == "page"]
    assert {t["url"] for t in pages} >= {sites["main"], sites["second"]}
    assert all({"id", "type", "title", "url", "attached"} <= set(t) for t in body)
    assert all("webSocketDebuggerUrl" not in t for t in body)   # CDP is not exposed


async def test_cross_origin_iframe_is_attached_as_a_child_of_its_tab(sidecar: SidecarProcess,
                                                                     sites: dict[str, str]) -> None:
    _, tabs = await sidecar.get("/tabs")
    main_id = tabs[0]["id"]
    # Reloading with wait=load returns after the frames loaded, so the OOPIF is attached by then.
    status, _ = await sidecar.request("POST", f"/tabs/{main_id}/navigate", json={"url": sites["main"]})
    assert status == 200
    _, tabs = await sidecar.get("/tabs")
    _, body = await sidecar.get("/targets")
    frames = [t for t in body if t["type"] == "iframe"]
    # Only the cross-site frame is out of process; the same-origin one lives in the page.
    assert [f["url"] for f in frames] == [sites["cross_frame"]]
    assert frames[0]["attached"] is True and frames[0]["parentId"] == main_id
    assert tabs[0]["frames"] == 1


async def test_new_and_closed_tabs_are_followed_without_reconnecting(sidecar: SidecarProcess,
                                                                     sites: dict[str, str]) -> None:
    status, created = await sidecar.request("POST", "/tabs", json={"url": sites["second"]})
    assert status == 201, created
    assert created["url"] == sites["second"] and created["index"] == 2
    _, tabs = await sidecar.get("/tabs")
    assert [t["id"] for t in tabs][-1] == created["id"]

    status, closed = await sidecar.request("DELETE", f"/tabs/{created['id'][:12]}")
    assert status == 200 and closed == {"closed": created["id"]}
    _, tabs = await sidecar.get("/tabs")
    assert created["id"] not in [t["id"] for t in tabs]
    status, body = await sidecar.request("DELETE", f"/tabs/{created['id']}")
    assert status == 404 and body["error"] == "tab_not_found"

    _, health = await sidecar.get("/health")
    assert health["reconnects"] == 0 and health["restarts"] == 0 and health["tabs"] == 2


async def test_navigate_waits_for_load_and_updates_the_tab(sidecar: SidecarProcess,
                                                           sites: dict[str, str]) -> None:
    _, tabs = await sidecar.get("/tabs")
    second = tabs[1]["id"]
    status, tab = await sidecar.request("POST", f"/tabs/{second}/navigate", json={"url": sites["main"]})
    assert status == 200, tab
    assert tab["url"] == sites["main"]
    _, tabs = await sidecar.get("/tabs")
    assert tabs[1]["url"] == sites["main"] and tabs[1]["title"] == "Main"
    assert [t["visible"] for t in tabs] == [True, False]   # the first tab is in front
    status, tab = await sidecar.request("POST", f"/tabs/{second}/activate")
    assert status == 200 and tab["id"] == second and tab["visible"] is True
    _, tabs = await sidecar.get("/tabs")
    assert [t["visible"] for t in tabs] == [False, True]
    status, one = await sidecar.get(f"/tabs/{second[:8]}")
    assert status == 200 and one["id"] == second and one["title"] == "Main" and one["index"] == 1


@pytest.mark.parametrize("path, body, field", [
    ("/tabs/{id}/navigate", {"url": 42}, "url"),
    ("/tabs/{id}/navigate", {"url": "no-scheme"}, "url"),
    ("/tabs/{id}/navigate", {"url": "about:blank", "wait": "forever"}, "wait"),
    ("/tabs/{id}/navigate", {"url": "about:blank", "timeout": -1}, "timeout"),
    ("/tabs", {"url": "about:blank", "background": "yes"}, "background"),
    # URLs Python's URL parser refuses: an unclosed IPv6 host, a port out of range.
    ("/tabs/{id}/navigate", {"url": "http://[::1"}, "url"),
    ("/tabs", {"url": "http://[::1"}, "url"),
    ("/tabs", {"url": "http://127.0.0.1:99999/"}, "url"),
    ("/reset", {"urls": ["about:blank", "http://[::1"]}, "urls[1]"),
])
async def test_bad_input_is_a_422_naming_the_field(sidecar: SidecarProcess, path: str, body: dict,
                                                   field: str) -> None:
    _, tabs = await sidecar.get("/tabs")
    status, reply = await sidecar.request("POST", path.format(id=tabs[0]["id"]), json=body)
    assert status == 422, reply
    assert reply["field"] == field


async def test_malformed_json_and_unknown_tab_are_clear_4xx(sidecar: SidecarProcess) -> None:
    _, tabs = await sidecar.get("/tabs")
    tab = tabs[0]["id"]
    status, reply = await sidecar.request("POST", f"/tabs/{tab}/navigate", data=b"{nope",
                                          headers={"Content-Type": "application/json"})
    assert status == 400 and reply["error"] == "bad_request"
    status, reply = await sidecar.request("POST", f"/tabs/{tab}/navigate", data=b'{"url": "about:blank"}')
    assert status == 415 and reply["field"] == "Content-Type"
    status, reply = await sidecar.request("POST", "/tabs/FFFFFFFF/activate")
    assert status == 404 and "FFFFFFFF" in reply["detail"]
    status, reply = await sidecar.get("/no/such/route")
    assert status == 404 and "error" in reply


async def test_killed_chromium_is_restarted_and_health_degrades_meanwhile(
        chromium: str, sites: dict[str, str]) -> None:
    # A 3 s backoff leaves a window in which the sidecar must say it is degraded.
    sidecar = await start_sidecar(sites, "--restart-backoff", "3")
    try:
        _, health = await sidecar.get("/health")
        old_pid = health["pid"]
        seen = len(sidecar.lines)
        os.kill(old_pid, signal.SIGKILL)
        await sidecar.wait_for_line("Chromium is down", 30, after=seen)
        status, health = await sidecar.get("/health")
        assert status == 503 and health["status"] == "degraded", health
        assert "killed by signal 9" in health["last_error"] and health["cdp_connected"] is False
        status, body = await sidecar.get("/tabs")
        assert status == 503 and body["error"] == "chromium_unavailable"

        await sidecar.wait_for_line(READY, 60, after=seen)
        status, health = await sidecar.get("/health")
        assert status == 200 and health["status"] == "ok", health
        assert health["restarts"] == 1 and health["pid"] != old_pid
        _, tabs = await sidecar.get("/tabs")
        assert [t["url"] for t in tabs] == [sites["main"], sites["second"]]
    finally:
        await sidecar.stop()


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
async def test_stopping_the_sidecar_stops_chromium(chromium: str, sites: dict[str, str],
                                                   stop_signal: int) -> None:
    sidecar = await start_sidecar(sites)
    _, health = await sidecar.get("/health")
    pid = health["pid"]
    code = await sidecar.stop(stop_signal)
    if stop_signal == signal.SIGTERM:
        assert code == 0, sidecar.log()
    # SIGTERM: the app's cleanup stops it; SIGKILL: the kernel does (PR_SET_PDEATHSIG).
    assert await wait_pid_gone(pid, 20), f"Chromium {pid} outlived the sidecar"
    if sidecar.tmpdir is not None:   # after SIGKILL, Chromium's children wrote there until now
        shutil.rmtree(sidecar.tmpdir, ignore_errors=True)


async def test_layout_route_delegates_to_the_layout_builder(sidecar: SidecarProcess) -> None:
    _, tabs = await sidecar.get("/tabs")
    status, body = await sidecar.get("/layout")
    assert status == 200, body
    assert [t["id"] for t in body["tabs"]] == [t["id"] for t in tabs]
    status, root = await sidecar.get("/")
    assert status == 200 and [t["id"] for t in root["tabs"]] == [t["id"] for t in body["tabs"]]
    status, one = await sidecar.get("/layout", params={"tab": tabs[1]["id"][:10]})
    assert status == 200 and [t["id"] for t in one["tabs"]] == [tabs[1]["id"]]
    status, bad = await sidecar.get("/layout", params={"max_nodes": "lots"})
    assert status == 422 and bad["field"] == "max_nodes"


async def test_runs_on_debian_python_with_bookworm_libraries(chromium: str, sites: dict[str, str]) -> None:
    """The images run /usr/bin/python3 with bookworm's aiohttp 3.8 and websockets 10.4."""
    from testbed.capability import require

    system_python = "/usr/bin/python3"
    require(os.path.exists(system_python), "Debian's /usr/bin/python3")
    probe = await asyncio.create_subprocess_exec(
        system_python, "-c", "import aiohttp, websockets", stderr=asyncio.subprocess.DEVNULL)
    require(await probe.wait() == 0, "python3-aiohttp and python3-websockets (Debian packages)")
    sidecar = await SidecarProcess.start(["--headless", sites["main"], sites["second"]],
                                         python=system_python)
    try:
        await sidecar.wait_for_line(READY, 60)
        status, health = await sidecar.get("/health")
        assert status == 200 and health["tabs"] == 2, health
        status, created = await sidecar.request("POST", "/tabs", json={"url": sites["second"]})
        assert status == 201, created
        status, tab = await sidecar.request("POST", f"/tabs/{created['id']}/navigate",
                                            json={"url": sites["main"]})
        assert status == 200 and tab["title"] == "Main", tab
        _, targets = await sidecar.get("/targets")
        assert [t["parentId"] for t in targets if t["type"] == "iframe"].count(tab["id"]) == 1
    finally:
        assert await sidecar.stop() == 0, sidecar.log()


async def test_chrome_crash_cannot_be_opened_through_the_api(sidecar: SidecarProcess) -> None:
    # Crashed tabs (reported, reloaded) are tested by killing the renderer: test_faults.py.
    _, tabs = await sidecar.get("/tabs")
    tab = tabs[0]["id"]
    status, reply = await sidecar.request("POST", f"/tabs/{tab}/navigate",
                                          json={"url": "chrome://crash", "wait": "none"})
    assert status == 403 and reply["error"] == "url_refused" and reply["field"] == "url", reply
    _, health = await sidecar.get("/health")
    assert health["status"] == "ok" and health["crashed_tabs"] == []


async def test_tab_closed_mid_request_is_a_409_not_a_hang(sidecar: SidecarProcess,
                                                          sites: Sites) -> None:
    status, tab = await sidecar.request("POST", "/tabs", json={"url": "about:blank"})
    assert status == 201
    # The server holds /slow's response, so this navigation stays pending (timeout 60 s)...
    navigation = asyncio.ensure_future(sidecar.request(
        "POST", f"/tabs/{tab['id']}/navigate", json={"url": sites["slow"], "timeout": 60}))
    await asyncio.wait_for(sites.slow_requested.wait(), 20)
    assert not navigation.done()
    # ...until the tab goes away: the pending call must fail at once, not at its timeout.
    status, _ = await sidecar.request("DELETE", f"/tabs/{tab['id']}")
    assert status == 200
    status, reply = await asyncio.wait_for(navigation, 10)
    assert status == 409 and reply["error"] == "tab_closed", reply


async def test_cdp_is_private_unless_exposed_on_a_fixed_loopback_port(chromium: str,
                                                                      sites: Sites) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sidecar = await start_sidecar(sites, "--cdp-port", str(port))
    try:
        _, health = await sidecar.get("/health")
        assert health["cdp_url"].startswith(f"ws://127.0.0.1:{port}/devtools/browser/")
        async with sidecar.http.get(f"http://127.0.0.1:{port}/json/version") as response:
            assert response.status == 200
            assert (await response.json())["webSocketDebuggerUrl"] == health["cdp_url"]
    finally:
        await sidecar.stop()


async def test_health_does_not_reveal_the_private_cdp_url(sidecar: SidecarProcess) -> None:
    _, health = await sidecar.get("/health")
    assert "cdp_url" not in health
