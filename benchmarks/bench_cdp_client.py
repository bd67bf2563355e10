#!/usr/bin/env python3
"""Benchmark of the sidecar's CDP client against real headless Chromium, baselines in the same run.

  .venv/bin/python benchmarks/bench_cdp_client.py [--sizes 500,2000,10000] [--runs 7]

Prints medians of:
  1. one small call over a new WebSocket per request (the reference design) vs. over the one
     persistent connection;
  2. Accessibility.getFullAXTree of generated pages, the multi-MB reply parsed with the cyclic GC
     active vs. paused (what CDPConnection does above LARGE_MESSAGE_CHARS).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time

from aiohttp import web

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sidecar.cdp import connection as cdp_connection  # noqa: E402
from sidecar.cdp.connection import CDPConnection  # noqa: E402
from sidecar.cdp.targets import TargetTracker  # noqa: E402
from sidecar.browser.launcher import LaunchOptions, default_chromium_path, launch  # noqa: E402

LOAD = ("document.readyState === 'complete' || new Promise(resolve => "
        "addEventListener('load', () => resolve(true), {once: true}))")


def generated_page(elements: int) -> str:
    """About ``elements`` elements: sections of headings, text, links, inputs and buttons."""
    parts = ["<!doctype html><title>Generated</title><main>"]
    for i in range(elements // 5):
        parts.append(f"<section><h3>Item {i}</h3><p>Text of item {i}</p>"
                     f"<a href='#a{i}'>Link {i}</a><input aria-label='Field {i}'>"
                     f"<button>Button {i}</button></section>")
    parts.append("</main>")
    return "".join(parts)


async def serve(sizes: list[int]) -> tuple[web.AppRunner, int]:
    app = web.Application()
    for size in sizes:
        html = generated_page(size)

        async def page(_request: web.Request, html: str = html) -> web.Response:
            return web.Response(text=html, content_type="text/html")
        app.router.add_get(f"/{size}", page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, runner.addresses[0][1]


async def timed(call, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,2000,10000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chromium", default=default_chromium_path())
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = max(1, min(args.runs, 50))          # bounded: this machine is shared

    runner, port = await serve(sizes)
    profile = tempfile.mkdtemp(prefix="bench-cdp-")
    browser = await launch(LaunchOptions(chromium_path=args.chromium, headless=True), profile)
    conn = await CDPConnection.connect(browser.ws_url, call_timeout=60)
    try:
        tracker = TargetTracker(conn)
        await tracker.start()

        async def per_request_socket() -> None:
            fresh = await CDPConnection.connect(browser.ws_url)
            try:
                await fresh.send("Browser.getVersion")
            finally:
                await fresh.close()

        new_socket = await timed(per_request_socket, runs * 3)
        persistent = await timed(lambda: conn.send("Browser.getVersion"), runs * 3)
        print("small call (Browser.getVersion), median ms:")
        print(f"  new WebSocket per request (reference) {new_socket:8.2f}")
        print(f"  persistent connection (sidecar)       {persistent:8.2f}   "
              f"{new_socket / persistent:5.1f}x faster")

        print(f"\nAccessibility.getFullAXTree, median of {runs} ms (reply size):")
        print(f"  {'elements':>8} {'MB':>6} {'GC active':>10} {'GC paused':>10} {'speedup':>8}")
        for size in sizes:
            created = await conn.send("Target.createTarget", {"url": f"http://127.0.0.1:{port}/{size}"})
            page = await tracker.wait_for_page(created["targetId"], 30)
            await page.send("Runtime.evaluate", {"expression": LOAD, "awaitPromise": True})
            await page.send("Accessibility.enable")
            reply = await page.send("Accessibility.getFullAXTree")
            megabytes = len(cdp_connection.json.dumps(reply)) / 1e6
            default_threshold = cdp_connection.LARGE_MESSAGE_CHARS
            try:
                cdp_connection.LARGE_MESSAGE_CHARS = 1 << 62      # never pause: the baseline
                active = await timed(lambda: page.send("Accessibility.getFullAXTree"), runs)
            finally:
                cdp_connection.LARGE_MESSAGE_CHARS = default_threshold
            paused = await timed(lambda: page.send("Accessibility.getFullAXTree"), runs)
            print(f"  {size:>8} {megabytes:6.2f} {active:10.1f} {paused:10.1f} {active / paused:7.2f}x")
            await conn.send("Target.closeTarget", {"targetId": page.target_id})
    finally:
        await conn.close()
        await browser.stop()
        shutil.rmtree(profile, ignore_errors=True)
        await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
