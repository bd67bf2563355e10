#!/usr/bin/env python3
"""What a default /layout read costs against a full read (?fresh=true), same page, same run.

A real sidecar (python -m sidecar) on a fresh Xvfb opens a generated page of N elements, in
three states, and GET /layout is timed with and without fresh=true, interleaved (a slow moment
of the host falls on both):
  * static: nothing changes between reads (the default answers from its capture);
  * changed: a button renamed before each read (the default reads what changed);
  * animating: a CSS spinner runs on the page for ever, so no capture can be proved current
    (the default must read anew, and must not cost more than fresh=true does).
Ratios are default / fresh: below 1 means the default read is cheaper.
Usage: .venv/bin/python benchmarks/bench_freshness.py [--elements 2000] [--runs 9]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from testbed.children import start_sidecar  # noqa: E402
from testbed.pages import PageServer  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402

SPINNER = """() => {
  const style = document.createElement('style');
  style.textContent = '@keyframes bench-spin { to { transform: rotate(360deg); } }';
  document.head.appendChild(style);
  const spinner = document.createElement('div');
  spinner.setAttribute('role', 'progressbar');
  spinner.setAttribute('aria-label', 'Loading');
  spinner.style.cssText = 'width:20px;height:20px;border:3px solid teal;border-top-color:white;' +
    'animation: bench-spin 0.8s linear infinite';
  document.body.prepend(spinner);
}"""
RENAME = "() => {{ document.querySelector('button').textContent = 'Renamed {n}'; }}"


class Bench:
    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.base = http, base

    async def layout(self, fresh: bool) -> float:
        query = {"fresh": "true"} if fresh else {}
        started = time.perf_counter()
        async with self.http.get(self.base + "/layout", params=query) as response:
            body = await response.read()
            assert response.status == 200, body[:500]
        return (time.perf_counter() - started) * 1000

    async def evaluate(self, function: str) -> None:
        body = {"kind": "evaluate", "function": function, "mode": "cdp"}
        async with self.http.post(self.base + "/act", json=body) as response:
            assert response.status == 200, await response.text()

    async def open(self, url: str) -> None:
        async with self.http.get(self.base + "/tabs") as response:
            tab = (await response.json())[0]["id"]
        async with self.http.post(f"{self.base}/tabs/{tab}/navigate", json={"url": url}) as response:
            assert response.status == 200, await response.text()
        await self.layout(fresh=False)          # the first read of the page: not timed

    async def pairs(self, runs: int, before=None) -> tuple[float, float]:
        """Medians of default and fresh reads, each pair after ``before(n)`` if given."""
        default, fresh = [], []
        for n in range(runs):
            if before is not None:
                await before(n)
            default.append(await self.layout(fresh=False))
            if before is not None:
                await before(n + runs)
            fresh.append(await self.layout(fresh=True))
        return statistics.median(default), statistics.median(fresh)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    xvfb = start_xvfb(1280, 800)
    server = PageServer()
    rows: list[tuple[str, float, float]] = []
    try:
        sidecar = await start_sidecar(xvfb.display, "about:blank")
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
                bench = Bench(http, sidecar.url)
                await bench.open(server.url(f"gen/{args.elements}"))
                rows.append(("static", *await bench.pairs(args.runs)))

                async def rename(n: int) -> None:
                    await bench.evaluate(RENAME.format(n=n))
                rows.append(("changed", *await bench.pairs(args.runs, rename)))
                await bench.evaluate(SPINNER)
                rows.append(("animating", *await bench.pairs(args.runs)))
        finally:
            await sidecar.close()
    finally:
        server.stop()
        xvfb.stop()
    print(f"GET /layout of a generated page of {args.elements} elements, default vs ?fresh=true "
          f"(medians of {args.runs}, interleaved; ratio = default / fresh)")
    for name, default, fresh in rows:
        print(f"  {name:<10} default {default:7.1f} ms  fresh {fresh:7.1f} ms  ratio {default / fresh:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
