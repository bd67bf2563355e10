#!/usr/bin/env python3
"""Benchmark /layout against the reference design's per-node method and Playwright.

Serves generated pages of 500, 2,000 and 10,000 elements on 127.0.0.1, opens them in a real
Chromium on a fresh Xvfb, and prints, per size, median times of:
  * cold: GET /layout from the real sidecar (python -m sidecar) right after a DOM change of four
    kinds (a rename, an insert, a <body> attribute, a <head> style sheet), so the tab is read
    again (the changed parts of the AX tree + a DOM snapshot);
  * cold300: the same change, then GET /layout ~300 ms later (an agent's act -> observe loop);
  * nav / nav300: the page navigated again, GET /layout right after its load event / ~300 ms
    later (the load starts a background read: "open a page, wait for it, look");
  * warm: GET /layout with nothing changed (one probe + fresh metrics; the encoded body reused),
    also with gzip and with If-None-Match (304); enc0: json.dumps of that body, the per-request
    cost before encoded bodies were reused;
  * reference: the reference design's method, a new WebSocket per request, getFullAXTree, then
    DOM.getBoxModel once per node, sequentially (measured here, same run);
  * playwright: page.locator("body").aria_snapshot() (no bounds at all) of the same page in a
    second Chromium: unchanged, right after each kind of change (the change not timed, as for
    /layout) and right after a navigation's load event, each measured right after the /layout
    request it is compared with (interleaved: a slow moment of the host falls on both), with
    the median of the per-pair ratios; if playwright is importable (pip install playwright; it
    drives /usr/bin/chromium, not a downloaded browser).
Usage: .venv/bin/python benchmarks/bench_layout.py [--sizes 500,2000,10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import urllib.request

import aiohttp
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sidecar.cdp.connection import CDPConnection  # noqa: E402
from sidecar.cdp.targets import TargetTracker  # noqa: E402
from testbed.children import CHROMIUM_FLAGS, start_sidecar  # noqa: E402
from testbed.pages import PageServer, free_port  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402


# Four kinds of change an action causes, from local to page-wide (each a statement, "%d" a
# counter so every run changes something):
#   text:   a button in the middle of the page is renamed (only its subtree is read again);
#   insert: a list item with a button is inserted mid-page (every box below it moves);
#   body:   an attribute of <body> changes (CSS could restyle anything: the patch compares
#           the page's rendering with the last one's, restyle.py, and finds nothing to read);
#   css:    a style sheet in <head> hides the first item of another section each time (the
#           comparison finds the two items shown or hidden, and reads them again).
CHANGES = {
    "text": "{ const b = document.querySelectorAll('button'); b[b.length >> 1].textContent = 'Renamed %d'; }",
    "insert": "{ const l = document.querySelectorAll('ul'); const li = document.createElement('li');"
              " li.innerHTML = '<button>Inserted %d</button>'; l[l.length >> 1].prepend(li); }",
    "body": "document.body.dataset.bench = '%d'",
    "css": "{ let s = document.getElementById('bench-css'); if (!s) { s = document.createElement('style');"
           " s.id = 'bench-css'; document.head.append(s); }"
           " s.textContent = 'section:nth-of-type(' + (%d %% 40 + 1) + ') li:first-child { display: none }'; }",
}


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def reference_method(ws_url: str) -> int:
    """The reference design: one WebSocket per request, one getBoxModel round trip per node."""
    async with websockets.connect(ws_url, max_size=None) as ws:
        ids = iter(range(1, 10**9))

        async def call(method: str, params: dict | None = None) -> dict:
            call_id = next(ids)
            await ws.send(json.dumps({"id": call_id, "method": method, "params": params or {}}))
            while True:
                message = json.loads(await ws.recv())
                if message.get("id") == call_id:
                    return message.get("result", {})

        nodes = (await call("Accessibility.getFullAXTree"))["nodes"]
        boxes = 0
        for node in nodes:
            backend_id = node.get("backendDOMNodeId")
            if backend_id is None:
                continue
            if (await call("DOM.getBoxModel", {"backendNodeId": backend_id})).get("model"):
                boxes += 1
        return boxes


async def time_it(coro_factory, runs: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = await coro_factory()
        samples.append(time.perf_counter() - start)
    return median_ms(samples), result


async def bench_size(cdp, tracker, sidecar, http, server: PageServer, port: int, size: int,
                     runs: int, ref_runs: int, pw: PlaywrightSide | None) -> dict:
    page = tracker.pages()[0]
    if pw is not None:
        await pw.open(server.url(f"/gen/{size}"))
    async with cdp.events("Page.loadEventFired", session_id=page.session_id) as loads:
        await page.send("Page.enable")
        await page.send("Page.navigate", {"url": server.url(f"/gen/{size}")})
        await loads.get(timeout=60)
    reply = await page.send("Runtime.evaluate", {"expression": "document.body.querySelectorAll('*').length",
                                                 "returnByValue": True})
    elements = reply["result"]["value"]

    async def get_layout(encoding: str = "identity", etag: str | None = None, **query: str) -> bytes:
        headers = {"Accept-Encoding": encoding}
        if etag:
            headers["If-None-Match"] = etag
        async with http.get(sidecar.url + "/layout", params={"tab": page.target_id, **query},
                            headers=headers) as response:
            body = await response.read()
            if response.status not in (200, 304) or (etag and response.status != 304):
                raise RuntimeError(f"/layout: {response.status} {body[:300]!r}")
            etags[encoding] = response.headers.get("ETag", "")
            return body

    etags: dict[str, str] = {}
    await get_layout()                      # the tab's first sight: installs the change probe
    counter = iter(range(10**9))

    async def change(kind: str = "body") -> None:
        await page.send("Runtime.evaluate", {"expression": CHANGES[kind] % next(counter)})

    async def observed(kind: str, delay: float) -> Paired:
        """An agent acts (the change, not timed), then looks ``delay`` s later (timed); and
        Playwright right after the same change on its page."""
        pairs = Paired()
        for _ in range(runs):
            await change(kind)
            if delay:
                await asyncio.sleep(delay)
            start = time.perf_counter()
            await get_layout()
            ours = time.perf_counter() - start
            if pw is not None and not delay:
                await pw.change(kind)
            pairs.add(ours, await pw.snapshot_s() if pw is not None else None)
        return pairs

    cold = {kind: await observed(kind, 0.0) for kind in CHANGES}
    cold300 = await observed("body", 0.3)
    await get_layout()
    warm = Paired()
    for _ in range(runs):
        start = time.perf_counter()
        body = await get_layout()
        warm.add(time.perf_counter() - start, await pw.snapshot_s() if pw is not None else None)
    await get_layout("gzip")
    gzip_ms, gz_body = await time_it(lambda: get_layout("gzip"), runs)
    etag_ms, _ = await time_it(lambda: get_layout(etag=etags["identity"]), runs)
    parsed = json.loads(body)
    nodes = parsed["tabs"][0]["layout"]["nodeCount"]
    # What every warm request used to cost before the encoded body was reused: json.dumps.
    encode_ms, _ = await time_it(lambda: _async(json.dumps, parsed, separators=(",", ":"),
                                                ensure_ascii=False), runs)
    buttons_ms, _ = await time_it(lambda: get_layout(roles="button", interesting="true"), runs)
    ws_url = f"ws://127.0.0.1:{port}/devtools/page/{page.target_id}"
    ref_ms, boxes = await time_it(lambda: reference_method(ws_url), ref_runs)

    async def navigated(delay: float) -> Paired:   # an agent opens a page, waits for it, looks
        pairs = Paired()
        for _ in range(runs):
            url = server.url(f"/gen/{size}?visit={next(counter)}")
            async with cdp.events("Page.loadEventFired", session_id=page.session_id) as loads:
                await page.send("Page.navigate", {"url": url})
                await loads.get(timeout=60)
            await asyncio.sleep(delay)
            start = time.perf_counter()
            await get_layout()
            ours = time.perf_counter() - start
            # Playwright on a new page right after its load (its script injected anew): only
            # against the look right after the load.
            pairs.add(ours, await pw.navigated_s(url) if pw is not None and not delay else None)
        return pairs

    nav, nav300 = await navigated(0.0), await navigated(0.3)
    return {"size": size, "elements": elements, "nodes": nodes, "bytes": len(body),
            "cold": cold, "cold300": cold300, "warm": warm, "gzip": gzip_ms, "etag": etag_ms,
            "encode": encode_ms, "buttons": buttons_ms, "reference": ref_ms, "reference_boxes": boxes,
            "nav": nav, "nav300": nav300}


async def _async(function, *args, **kwargs):
    return function(*args, **kwargs)


class PlaywrightSide:
    """Playwright's aria_snapshot() of the same pages in its own Chromium on the same display,
    driven step by step so each sample is taken right after the /layout one it is compared with."""

    def __init__(self, playwright, browser, page) -> None:
        self._playwright, self._browser, self.page = playwright, browser, page
        self._counter = iter(range(10**9))

    @classmethod
    async def start(cls, display: str) -> PlaywrightSide | None:
        try:
            from playwright.async_api import async_playwright
        except ImportError:
            return None
        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=False, env={"DISPLAY": display},
            args=list(CHROMIUM_FLAGS))
        return cls(playwright, browser, await browser.new_page())

    async def open(self, url: str) -> None:
        await self.page.goto(url, wait_until="load")
        await self.page.locator("body").aria_snapshot()    # its injected script, once per page

    async def change(self, kind: str) -> None:
        await self.page.evaluate("() => { %s; }" % (CHANGES[kind] % next(self._counter)))

    async def snapshot_s(self) -> float:
        start = time.perf_counter()
        await self.page.locator("body").aria_snapshot()
        return time.perf_counter() - start

    async def navigated_s(self, url: str) -> float:
        """A new page's aria_snapshot() right after its load event (the navigation not timed)."""
        await self.page.goto(url, wait_until="load")
        return await self.snapshot_s()

    async def close(self) -> None:
        await self._browser.close()
        await self._playwright.stop()


class Paired:
    """Samples of /layout and, when Playwright runs, of aria_snapshot() taken right after each."""

    def __init__(self) -> None:
        self.ours: list[float] = []
        self.theirs: list[float] = []

    def add(self, ours: float, theirs: float | None) -> None:
        self.ours.append(ours)
        if theirs is not None:
            self.theirs.append(theirs)

    @property
    def ms(self) -> float:
        return median_ms(self.ours)

    @property
    def pw_ms(self) -> float | None:
        return median_ms(self.theirs) if self.theirs else None

    @property
    def ratio(self) -> float | None:
        """The median of the per-pair ratios (> 1: /layout faster)."""
        if not self.theirs:
            return None
        return statistics.median(t / o for o, t in zip(self.ours, self.theirs))


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="500,2000,10000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reference-runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    xvfb = start_xvfb(1280, 800)
    server = PageServer()
    rows = []
    pw = None
    try:
        port = free_port()
        sidecar = await start_sidecar(xvfb.display, "about:blank", extra=("--cdp-port", str(port)))
        try:
            pw = await PlaywrightSide.start(xvfb.display)
            version = await asyncio.to_thread(
                lambda: json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=10)))
            cdp = await CDPConnection.connect(version["webSocketDebuggerUrl"], call_timeout=60)
            tracker = TargetTracker(cdp)
            await tracker.start()
            await tracker.wait_for(lambda: bool(tracker.pages()), 20)
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
                for size in sizes:
                    ref_runs = 1 if size >= 10_000 else args.reference_runs
                    rows.append(await bench_size(cdp, tracker, sidecar, http, server, port, size,
                                                 args.runs, ref_runs, pw))
            tracker.stop()
            await cdp.close()
        finally:
            if pw is not None:
                await pw.close()
            await sidecar.close()
    finally:
        server.stop()
        xvfb.stop()
    _print(rows, args.runs, args.reference_runs, pw is not None)
    return 0


# (column, the row's Paired) of the comparison tables
_PAIRED = (("c-text", lambda r: r["cold"]["text"]), ("c-ins", lambda r: r["cold"]["insert"]),
           ("c-body", lambda r: r["cold"]["body"]), ("c-css", lambda r: r["cold"]["css"]),
           ("c300", lambda r: r["cold300"]), ("nav", lambda r: r["nav"]),
           ("n300", lambda r: r["nav300"]), ("warm", lambda r: r["warm"]))


def _print(rows: list[dict], runs: int, reference_runs: int, with_playwright: bool) -> None:
    print(f"GET /layout over HTTP from `python -m sidecar` (Chromium on Xvfb); medians of {runs} "
          f"runs (reference: {reference_runs}, 1 at 10k)")
    print(f"{'size':>6} {'elems':>6} {'nodes':>6} {'MB':>5} "
          + " ".join(f"{name:>7}" for name, _ in _PAIRED)
          + f" {'gzip':>6} {'304':>5} {'enc0':>6} {'btn':>6} {'ref':>8} "
          + " ".join(f"{'ref/' + name:>8}" for name, _ in _PAIRED[:6]))
    for row in rows:
        ref = row["reference"]
        print(f"{row['size']:>6} {row['elements']:>6} {row['nodes']:>6} {row['bytes'] / 1e6:5.2f} "
              + " ".join(f"{get(row).ms:7.1f}" for _, get in _PAIRED)
              + f" {row['gzip']:6.1f} {row['etag']:5.1f} {row['encode']:6.1f} {row['buttons']:6.1f} {ref:8.1f} "
              + " ".join(f"{ref / get(row).ms:8.1f}" for _, get in _PAIRED[:6]))
    if with_playwright:
        print("Playwright aria_snapshot() (no bounds), each sample right after the /layout one: after the "
              "same change (c-*), unchanged (c300, warm), a new page right after its load (nav); "
              "ratio: median of the per-pair ratios, > 1 means /layout is faster")
        print(f"{'size':>6} " + " ".join(f"{'pw:' + name:>9} {'ratio':>6}" for name, _ in _PAIRED
                                         if name != "n300"))
        for row in rows:
            print(f"{row['size']:>6} " + " ".join(
                f"{get(row).pw_ms:9.1f} {get(row).ratio:6.2f}" for name, get in _PAIRED if name != "n300"))
    print("all ms. c-text / c-ins / c-body / c-css: asked right after a change: a button renamed "
          "mid-page (its subtree read again), a list item inserted mid-page (half the boxes move), "
          "an attribute of <body> set (page-wide: the rendering is compared with the last read's, "
          "nothing to read again), a <head> style sheet hiding another list item (page-wide: the two "
          "items it showed/hid are read again); c300: asked 300 ms after a <body> change (act -> "
          "observe); nav / n300: a new page's /layout asked right after its load event (a full "
          "read) / 300 ms later (its load starts a background read); warm: page unchanged, identity "
          "body; gzip: warm with Accept-Encoding: gzip (client inflates); 304: warm with "
          "If-None-Match; enc0: json.dumps of the body (what each warm request cost before bodies "
          "were reused); btn: ?roles=button&interesting=true warm; ref: per-node reference method")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
