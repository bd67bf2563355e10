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
  * playwright: page.locator("body").aria_snapshot() (no bounds at all) of the unchanged page,
    and right after each kind of change (the change not timed, as for /layout), if playwright is
    importable (pip install playwright; it drives /usr/bin/chromium, not a downloaded browser).
Usage: .venv/bin/python scripts/bench_layout.py [--sizes 500,2000,10000] [--runs 7]
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
from tests.sidecar_layout.harness import PageServer, free_port, start_sidecar  # noqa: E402
from tests.support.xvfb import start_xvfb  # noqa: E402


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
                     runs: int, ref_runs: int) -> dict:
    page = tracker.pages()[0]
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

    async def observed(kind: str, delay: float) -> float:
        """An agent acts (the change, not timed), then looks ``delay`` s later (timed)."""
        samples = []
        for _ in range(runs):
            await change(kind)
            if delay:
                await asyncio.sleep(delay)
            start = time.perf_counter()
            await get_layout()
            samples.append(time.perf_counter() - start)
        return median_ms(samples)

    cold_ms = {kind: await observed(kind, 0.0) for kind in CHANGES}
    cold300_ms = await observed("body", 0.3)
    await get_layout()
    warm_ms, body = await time_it(get_layout, runs)
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

    async def navigated(delay: float) -> float:   # an agent opens a page, waits for it, looks
        samples = []
        for _ in range(runs):
            async with cdp.events("Page.loadEventFired", session_id=page.session_id) as loads:
                await page.send("Page.navigate", {"url": server.url(f"/gen/{size}?visit={next(counter)}")})
                await loads.get(timeout=60)
            await asyncio.sleep(delay)
            start = time.perf_counter()
            await get_layout()
            samples.append(time.perf_counter() - start)
        return median_ms(samples)

    nav_ms, nav300_ms = await navigated(0.0), await navigated(0.3)
    return {"size": size, "elements": elements, "nodes": nodes, "bytes": len(body), "cold": cold_ms["body"],
            "cold_text": cold_ms["text"], "cold_insert": cold_ms["insert"], "cold_css": cold_ms["css"],
            "cold300": cold300_ms, "warm": warm_ms, "gzip": gzip_ms, "etag": etag_ms,
            "encode": encode_ms, "buttons": buttons_ms, "reference": ref_ms, "reference_boxes": boxes,
            "nav": nav_ms, "nav300": nav300_ms}


async def _async(function, *args, **kwargs):
    return function(*args, **kwargs)


def playwright_times(server: PageServer, sizes: list[int], runs: int, display: str,
                     ) -> dict[int, dict[str, float]]:
    """Per size, Playwright's aria_snapshot() of the page unchanged ("static") and right after
    each of CHANGES (the change not timed, as for /layout: its own style and layout recalculation
    then falls in the snapshot, as it falls in the sidecar's request)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    import os
    os.environ["DISPLAY"] = display
    result = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=False,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-quic",
                                           "--no-first-run", "--disable-background-networking",
                                           "--disable-component-update", "--disable-sync"])
        page = browser.new_page()
        for size in sizes:
            page.goto(server.url(f"/gen/{size}"))
            body = page.locator("body")
            body.aria_snapshot()
            counter = iter(range(10**9))
            result[size] = {}
            for kind in ("static", *CHANGES):
                samples = []
                for _ in range(runs):
                    if kind != "static":
                        page.evaluate("() => { %s; }" % (CHANGES[kind] % next(counter)))
                    start = time.perf_counter()
                    body.aria_snapshot()
                    samples.append(time.perf_counter() - start)
                result[size][kind] = median_ms(samples)
        browser.close()
    return result


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
    try:
        port = free_port()
        sidecar = await start_sidecar(xvfb.display, "about:blank", extra=("--expose-cdp", str(port)))
        try:
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
                                                 args.runs, ref_runs))
            tracker.stop()
            await cdp.close()
        finally:
            await sidecar.close()
        pw = await asyncio.to_thread(playwright_times, server, sizes, args.runs, xvfb.display)
    finally:
        server.stop()
        xvfb.stop()

    print(f"GET /layout over HTTP from `python -m sidecar` (Chromium on Xvfb); medians of {args.runs} "
          f"runs (reference: {args.reference_runs}, 1 at 10k)")
    print(f"{'size':>6} {'elems':>6} {'nodes':>6} {'MB':>5} {'c-text':>7} {'c-ins':>7} {'c-body':>7} "
          f"{'c-css':>7} {'c300':>6} {'nav':>6} {'n300':>6} {'warm':>6} {'gzip':>6} {'304':>5} {'enc0':>6} "
          f"{'btn':>6} {'ref':>8} {'ref/text':>8} {'ref/ins':>7} {'ref/body':>8} {'ref/css':>7} {'ref/nav':>7} "
          f"{'pw':>6} {'pw/c300':>7} {'pw/nav':>6} {'pw/n300':>7} {'pw/warm':>7}")
    for row in rows:
        p, ref = pw.get(row["size"], {}).get("static"), row["reference"]
        pw_cells = (f"{p:6.1f} {p / row['cold300']:7.2f} {p / row['nav']:6.2f} {p / row['nav300']:7.2f} "
                    f"{p / row['warm']:7.1f}" if p else f"{'n/a':>6}")
        print(f"{row['size']:>6} {row['elements']:>6} {row['nodes']:>6} {row['bytes'] / 1e6:5.2f} "
              f"{row['cold_text']:7.1f} {row['cold_insert']:7.1f} {row['cold']:7.1f} {row['cold_css']:7.1f} "
              f"{row['cold300']:6.1f} {row['nav']:6.1f} {row['nav300']:6.1f} {row['warm']:6.1f} {row['gzip']:6.1f} "
              f"{row['etag']:5.1f} {row['encode']:6.1f} {row['buttons']:6.1f} {ref:8.1f} "
              f"{ref / row['cold_text']:8.1f} {ref / row['cold_insert']:7.1f} {ref / row['cold']:8.1f} "
              f"{ref / row['cold_css']:7.1f} {ref / row['nav']:7.1f} {pw_cells}")
    if pw:
        print("Playwright aria_snapshot() right after the same change (not timed) vs /layout right after it:")
        print(f"{'size':>6} " + " ".join(f"{'pw-' + k:>9} {'ratio':>6}" for k in CHANGES))
        ours = {"text": "cold_text", "insert": "cold_insert", "body": "cold", "css": "cold_css"}
        for row in rows:
            after = pw.get(row["size"])
            if after:
                print(f"{row['size']:>6} " + " ".join(
                    f"{after[k]:9.1f} {after[k] / row[ours[k]]:6.2f}" for k in CHANGES))
    print("all ms; ratios > 1 mean /layout is faster. c-text / c-ins / c-body / c-css: asked right "
          "after a change: a button renamed mid-page (its subtree read again), a list item inserted "
          "mid-page (half the boxes move), an attribute of <body> set (page-wide: the rendering is "
          "compared with the last read's, nothing to read again), a <head> style sheet hiding another "
          "list item (page-wide: the two items it showed/hid are read again); c300: asked 300 ms "
          "after a <body> change (act -> observe); nav / n300: a new page's /layout asked right after "
          "its load event (a full read) / 300 ms later (its load starts a background read); warm: page "
          "unchanged, identity body; gzip: warm "
          "with Accept-Encoding: gzip (client inflates); 304: warm with If-None-Match; enc0: "
          "json.dumps of the body (what each warm request cost before bodies were reused); btn: "
          "?roles=button&interesting=true warm; ref: per-node reference method; pw: Playwright "
          "aria_snapshot() (no bounds) of the unchanged page; pw-<kind>: right after that change")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
