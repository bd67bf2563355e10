"""A reset leaks nothing of one episode into the next (real Chromium, real X display).

Each kind of state is set in an episode and read back there (so each probe is shown to see it),
then read in the episode after the reset, where none may be: cookies, local and session storage,
IndexedDB, cache storage, service workers, the HTTP cache, the tab's history, permission grants,
downloads, and a tab with an open dialog. Twice: from the first episode (the browser's default
context on its throwaway profile) and from an episode made by a reset (a browser context).
"""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
from typing import Any

import pytest
from aiohttp import web

from sidecar.cdp.connection import CDPConnection

from .support import SidecarProcess

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

SET_STATE = """(async () => {
  document.cookie = "leak=1; max-age=3600; path=/";
  localStorage.setItem("leak", "1");
  sessionStorage.setItem("leak", "1");
  await new Promise((ok, bad) => {
    const open = indexedDB.open("leakdb", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("s");
    open.onsuccess = () => { open.result.close(); ok(); };
    open.onerror = () => bad(open.error);
  });
  await (await caches.open("leakcache")).put("/x", new Response("x"));
  await navigator.serviceWorker.register("/sw.js");
  await navigator.serviceWorker.ready;
  history.pushState({}, "", "/?visited");
  const link = document.createElement("a");
  link.href = "/download"; link.download = "leak.txt";
  document.body.append(link); link.click();
  return true;
})()"""
PROBE = """(async () => ({
  cookie: document.cookie,
  local: localStorage.getItem("leak"),
  session: sessionStorage.getItem("leak"),
  idb: (await indexedDB.databases()).map(db => db.name),
  caches: await caches.keys(),
  service_workers: (await navigator.serviceWorker.getRegistrations()).length,
  geolocation: (await navigator.permissions.query({name: "geolocation"})).state,
  history: history.length,
}))()"""
CLEAN = {"cookie": "", "local": None, "session": None, "idb": [], "caches": [],
         "service_workers": 0, "geolocation": "prompt", "history": 1}


class Site:
    """One origin with a cacheable resource whose hits are counted, a worker and a download."""

    def __init__(self) -> None:
        self.cached_hits = 0

    async def start(self) -> tuple[web.AppRunner, str]:
        async def page(_request: web.Request) -> web.Response:
            return web.Response(text="<!doctype html><title>site</title><body>site</body>",
                                content_type="text/html")

        async def cached(_request: web.Request) -> web.Response:
            self.cached_hits += 1
            return web.Response(text=str(self.cached_hits), headers={"Cache-Control": "max-age=3600"})

        async def worker(_request: web.Request) -> web.Response:
            return web.Response(text="self.addEventListener('fetch', () => {});",
                                content_type="application/javascript")

        async def download(_request: web.Request) -> web.Response:
            return web.Response(text="leak", headers={"Content-Disposition": "attachment; filename=leak.txt"})

        app = web.Application()
        app.router.add_get("/", page)
        app.router.add_get("/cached", cached)
        app.router.add_get("/sw.js", worker)
        app.router.add_get("/download", download)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]   # noqa: SLF001 - aiohttp's only way
        return runner, f"http://127.0.0.1:{port}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def evaluate(cdp: CDPConnection, target_id: str, expression: str) -> Any:
    attached = await cdp.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
    session = attached["sessionId"]
    try:
        reply = await cdp.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                    "returnByValue": True}, session_id=session)
        assert "exceptionDetails" not in reply, reply["exceptionDetails"].get("exception", reply)
        return reply["result"].get("value")
    finally:
        await cdp.send("Target.detachFromTarget", {"sessionId": session})


async def open_dialog(cdp: CDPConnection, target_id: str) -> None:
    """An alert open on the tab (the reset must close the tab anyway)."""
    attached = await cdp.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
    session = attached["sessionId"]
    opened = cdp.events("Page.javascriptDialogOpening", session_id=session)
    try:
        await cdp.send("Page.enable", session_id=session)
        await cdp.send("Runtime.evaluate", {"expression": "setTimeout(() => alert('leak'), 0)"},
                       session_id=session)
        await asyncio.wait_for(opened.get(), 30)
    finally:
        opened.close()


async def fetch_cached(cdp: CDPConnection, target_id: str, site: Site) -> bool:
    """Whether fetching /cached reached the server (False: the HTTP cache answered)."""
    before = site.cached_hits
    await evaluate(cdp, target_id, "fetch('/cached').then(r => r.text())")
    return site.cached_hits > before


async def wait_for(predicate, what: str, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await predicate():
        assert loop.time() < deadline, f"{what} did not happen within {timeout} s"
        await asyncio.sleep(0.05)


async def test_a_reset_leaks_no_state_of_the_previous_episode(chromium: str, xvfb) -> None:
    site = Site()
    runner, base = await site.start()
    downloads = tempfile.mkdtemp(prefix="reset-downloads-")
    sidecar = await SidecarProcess.start(
        ["--display", xvfb.display, "--cdp-port", str(free_port()), "--downloads-dir", downloads, base + "/"],
        env={"DISPLAY": xvfb.display})
    cdp = None
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        _, health = await sidecar.get("/health")
        cdp = await CDPConnection.connect(health["cdp_url"], call_timeout=30)
        _, tabs = await sidecar.get("/tabs")
        tab = tabs[0]["id"]

        async def loaded() -> bool:   # the start page, not the initial about:blank
            return await evaluate(cdp, tab, "location.href + ' ' + document.readyState") == base + "/ complete"

        await wait_for(loaded, "the start page's load")
        for episode in ("the first episode (default context)", "an episode made by a reset"):
            # set every kind of state, and see each probe find it
            assert await evaluate(cdp, tab, SET_STATE) is True, episode
            context = (await cdp.send("Target.getTargetInfo", {"targetId": tab}))["targetInfo"]
            await cdp.send("Browser.grantPermissions", {
                "origin": base, "permissions": ["geolocation"],
                **({"browserContextId": context["browserContextId"]} if "browserContextId" in context else {})})
            await fetch_cached(cdp, tab, site)
            assert not await fetch_cached(cdp, tab, site), f"{episode}: /cached is not in the HTTP cache"

            async def downloaded() -> bool:
                _, listed = await sidecar.get("/downloads")
                return any(d["state"] == "completed" for d in listed["downloads"])

            await wait_for(downloaded, f"{episode}: the download")
            seen = await evaluate(cdp, tab, PROBE)
            assert all(seen[key] != CLEAN[key] for key in CLEAN), (episode, seen)
            await open_dialog(cdp, tab)
            assert os.listdir(downloads), episode

            status, body = await sidecar.request("POST", "/reset", json={"urls": [base + "/"]})
            assert status == 200 and body["isolation"] == "context", body
            old_tab, tab = tab, body["tabs"][0]["id"]
            assert [t["id"] for t in body["tabs"]] == [tab] and tab != old_tab, body

            seen = await evaluate(cdp, tab, PROBE)
            assert seen == CLEAN, (episode, seen)
            assert await fetch_cached(cdp, tab, site), f"{episode}: the HTTP cache answered"
            _, listed = await sidecar.get("/downloads")
            assert listed["downloads"] == [] and os.listdir(downloads) == [], (episode, listed)
            targets = (await cdp.send("Target.getTargets"))["targetInfos"]
            assert old_tab not in {t["targetId"] for t in targets}, f"{episode}: its tab (and dialog) stayed"
            context = (await cdp.send("Target.getTargetInfo", {"targetId": tab}))["targetInfo"]["browserContextId"]
            workers = [t for t in targets if t["type"] == "service_worker" and t.get("browserContextId") == context]
            assert workers == [], (episode, targets)
    finally:
        if cdp is not None:
            await cdp.close()
        assert await sidecar.stop() == 0, sidecar.log()
        await runner.cleanup()
