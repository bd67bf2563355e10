#!/usr/bin/env python3
"""Benchmark the lasting browser state (issue 32), in one run on a local headless sidecar:

  * reset: POST /reset onto a named profile (logged in: a cookie and localStorage, written to
    disk by Browser.close) beside the throwaway profile (the baseline), alternated; medians of
    the sidecar's duration_s and of the client's round trip;
  * HAR: on bench_agent's pages (500, 2,000, 10,000 elements and the iframes page), a page
    load, a snapshot and a click by ref, with no capture (the baseline), with HAR capture and
    with HAR capture keeping bodies, alternated per run; medians and ratios to the baseline.

Usage: .venv/bin/python benchmarks/bench_browser_state.py [--runs 7] [--sizes 500,2000,10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_agent import LISTENING, Child, Ours, button_ref, median, serve_pages  # noqa: E402

READY = re.compile("Chromium ready")
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used: the sidecar's own cost, which other
    processes on a shared machine do not inflate as they do wall-clock times."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_MS


HAR_MODES = {"off": None, "har": {"content": False}, "har+bodies": {"content": True}}


async def post(http: aiohttp.ClientSession, url: str, body: dict) -> dict:
    async with http.post(url, json=body) as response:
        answer = await response.json()
        assert response.status == 200, answer
        return answer


async def bench_reset(base: str, http: aiohttp.ClientSession, page: str, runs: int) -> None:
    # Log in once on the profile: a lasting cookie and a localStorage item, as a site would.
    await post(http, base + "/reset", {"urls": [page], "profile": "bench"})
    await post(http, base + "/storage-state", {
        "cookies": [{"name": "session", "value": "x" * 64, "domain": "127.0.0.1", "path": "/",
                     "expires": time.time() + 86400}],
        "origins": [{"origin": page.rsplit("/", 1)[0], "localStorage": [{"name": "user", "value": "bench"}]}]})
    server: dict[str, list[float]] = {"throwaway": [], "named": []}
    client: dict[str, list[float]] = {"throwaway": [], "named": []}
    kinds = [("throwaway", {}), ("named", {"profile": "bench"})]
    for run in range(runs):
        for kind, extra in kinds[run % 2:] + kinds[:run % 2]:
            started = time.perf_counter()
            answer = await post(http, base + "/reset", {"urls": [page], **extra})
            client[kind].append(time.perf_counter() - started)
            server[kind].append(answer["duration_s"])
    state = await (await http.get(base + "/storage-state")).json()
    assert any(c["name"] == "session" for c in state["cookies"]), "the named profile lost its login"
    print(f"reset, {runs} runs each (medians, seconds):")
    for kind in ("throwaway", "named"):
        print(f"  {kind:9s}  sidecar {median(server[kind]):.3f}  round trip {median(client[kind]):.3f}")
    print(f"  named / throwaway: sidecar {median(server['named']) / median(server['throwaway']):.2f}, "
          f"round trip {median(client['named']) / median(client['throwaway']):.2f}")


async def bench_har(base: str, http: aiohttp.ClientSession, ours: Ours, urls: dict[str, str], runs: int,
                    pid: int) -> None:
    print(f"\nHAR capture cost, {runs} runs per mode, alternated (medians, ms; ratio to off; cpu: the "
          "sidecar's CPU ms over the load, snapshot and click):")
    for label, url in urls.items():
        times: dict[str, dict[str, list[float]]] = {mode: {"load": [], "snap": [], "click": [], "cpu": []}
                                                    for mode in HAR_MODES}
        modes = list(HAR_MODES.items())
        for run in range(runs):
            # Each run in another order: no mode always follows the same one (caches, warm-up).
            for mode, options in modes[run % len(modes):] + modes[:run % len(modes)]:
                if options is not None:
                    await post(http, base + "/har/start", options)
                cpu_before = cpu_ms(pid)
                started = time.perf_counter()
                await ours.open(url)
                times[mode]["load"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                snapshot = await ours.snapshot()
                times[mode]["snap"].append((time.perf_counter() - started) * 1000)
                ref = button_ref(snapshot, "Button 1") if "Button 1" in snapshot else button_ref(snapshot, "Top button")
                started = time.perf_counter()
                await ours.click(ref, "cdp")
                times[mode]["click"].append((time.perf_counter() - started) * 1000)
                times[mode]["cpu"].append(cpu_ms(pid) - cpu_before)
                if options is not None:
                    har = await post(http, base + "/har/stop", {})
                    assert har["log"]["entries"], "the capture saw no request of the page load"
        print(f"  {label}:")
        for what in ("load", "snap", "click", "cpu"):
            off = median(times["off"][what])
            cells = "  ".join(f"{mode} {median(times[mode][what]):7.1f} ({median(times[mode][what]) / off:.2f})"
                              for mode in HAR_MODES)
            print(f"    {what:5s}  {cells}")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sizes", default="500,2000,10000")
    args = parser.parse_args()
    runner, _port, urls = await serve_pages([int(n) for n in args.sizes.split(",")])
    workdir = Path(tempfile.mkdtemp(prefix="bench-state-"))
    sidecar = Child([sys.executable, "-m", "sidecar", "--headless", "--port", "0", "about:blank"],
                    workdir / "sidecar.log", env={"SIDECAR_PROFILES_DIR": str(workdir / "profiles"),
                                                  "TMPDIR": str(workdir)})
    try:
        base = (await asyncio.to_thread(sidecar.wait_for, LISTENING, 60)).group(1)
        async with aiohttp.ClientSession() as http:
            await asyncio.to_thread(sidecar.wait_for, READY, 60)
            first = next(iter(urls.values()))
            await bench_reset(base, http, first, args.runs)
            await post(http, base + "/reset", {"urls": ["about:blank"]})
            await bench_har(base, http, Ours(base, http, visible=False), urls, args.runs, sidecar.process.pid)
    finally:
        sidecar.stop()
        await runner.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
