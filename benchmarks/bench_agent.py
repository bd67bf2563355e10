#!/usr/bin/env python3
"""Benchmark the sidecar's agent contract against Playwright MCP, on the same pages, same run.

Pages (served on 127.0.0.1): 500, 2,000 and 10,000 elements (rows of a link, a button, a text
field and a text), and a page with five same-origin iframes and one cross-origin iframe. Per
page, medians of:
  * snap:        a snapshot of the unchanged page, at default settings;
  * snap_change: a snapshot right after a change to the page (a button renamed; the change
                 itself not timed);
  * chars:       the snapshot's size in characters at default settings (what enters an
                 agent's context);
  * click:       a click by ref round trip (the renamed button, an early row's); on the
                 iframe page also of a button in the first (same-origin) iframe and in the
                 cross-origin one;
for: ours over HTTP (GET /snapshot, POST /act mode cdp, and mode visible with --visible),
ours through our MCP server over stdio (python -m sidecar.mcp), and Playwright MCP
(@playwright/mcp from npm, pinned, installed by this script into .state/playwright-mcp with
npm; it launches the system Chromium with --executable-path, headless) through the MCP SDK's
stdio client. Ratios ours / theirs are printed; below 1 means ours is faster or smaller.

Needs: node and npm (Debian: nodejs npm), Chromium (Debian: chromium), the `agent` extra.
--visible also needs Xvfb and starts desktopd on it (a visible act moves the real pointer).
Usage: .venv/bin/python benchmarks/bench_agent.py [--sizes 500,2000,10000] [--runs 7] [--visible]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import aiohttp
from aiohttp import web
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83"
NPM_DIR = ROOT / ".state" / "playwright-mcp"
VIEWPORT = (1280, 800)
LISTENING = re.compile(r"listening on (http://\S+)")
RENAME = "document.querySelectorAll('button')[{index}].textContent = 'Renamed {n}'"
FRAME_BUTTON = "Button 1"      # clicked inside the iframes page's frames
FRAME_KINDS = ("same", "cross")


# -- pages -------------------------------------------------------------------------------------

def rows_page(elements: int, title: str) -> str:
    rows = max(1, elements // 5)           # a row: div, link, button, input, span
    body = "".join(f"<div><a href='#r{i}'>Link {i}</a> <button onclick='this.dataset.n=1'>Button {i}</button> "
                   f"<input aria-label='Field {i}'> <span>Text of row {i}</span></div>" for i in range(rows))
    return f"<!doctype html><title>{title}</title><h1>{title}</h1>{body}"


async def serve_pages(sizes: list[int]) -> tuple[web.AppRunner, int, dict[str, str]]:
    pages = {f"/p{n}": rows_page(n, f"Page of {n} elements") for n in sizes}
    pages["/frame"] = rows_page(100, "Frame")
    app = web.Application()
    runner = web.AppRunner(app)
    port_holder: dict[str, int] = {}

    async def page(request: web.Request) -> web.Response:
        path = request.path
        if path == "/iframes":
            cross = f"http://localhost:{port_holder['port']}/frame"
            frames = "".join("<iframe src='/frame' width=600 height=200></iframe>" for _ in range(5))
            html = (f"<!doctype html><title>Iframes</title><h1>Iframes</h1><button>Top button</button>"
                    f"{frames}<iframe src='{cross}' width=600 height=200></iframe>")
            return web.Response(text=html, content_type="text/html")
        if path in pages:
            return web.Response(text=pages[path], content_type="text/html")
        raise web.HTTPNotFound()

    app.router.add_get("/{name}", page)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    port_holder["port"] = port
    base = f"http://127.0.0.1:{port}"
    urls = {f"{n} elements": f"{base}/p{n}" for n in sizes}
    urls["iframes (5 same-origin + 1 cross-origin)"] = f"{base}/iframes"
    return runner, port, urls


# -- processes ---------------------------------------------------------------------------------

class Child:
    """A child process whose stderr goes to a log file; stopped by its PID."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.log = log
        self.process = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **(env or {})},
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(log, "w"))

    def wait_for(self, pattern: re.Pattern, timeout: float) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = pattern.search(self.log.read_text(errors="replace"))
            if match:
                return match
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"{self.process.args[:3]} did not log {pattern.pattern}:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_xvfb(workdir: Path) -> tuple[Child, str]:
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0",
                             f"{VIEWPORT[0]}x{VIEWPORT[1] + 120}x24", "-nolisten", "tcp"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL,
                            stderr=open(workdir / "xvfb.log", "w"))
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        display = ":" + pipe.readline().strip()
    child = Child.__new__(Child)
    child.log, child.process = workdir / "xvfb.log", xvfb
    return child, display


def install_playwright_mcp() -> Path:
    cli = NPM_DIR / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if shutil.which("npm") is None:
        # Debian's nodejs + npm, unless the host has a Node.js of its own (scripts/lib.sh).
        subprocess.run(["bash", "-c", f". {ROOT}/scripts/lib.sh && ensure_node"], check=True, timeout=900)
    if not cli.exists():
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", PLAYWRIGHT_MCP],
                       cwd=NPM_DIR, check=True, timeout=600)
    return cli


# -- measuring ---------------------------------------------------------------------------------

async def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = await call()
    return (time.perf_counter() - started) * 1000, result


def text_of(result) -> str:
    if result.isError:
        raise RuntimeError("".join(getattr(b, "text", "") for b in result.content)[:2000])
    return "".join(getattr(block, "text", "") for block in result.content)


def frame_refs(snapshot: str) -> tuple[str, str]:
    """The refs of FRAME_BUTTON in the iframes page's first iframe (same-origin) and its last
    (cross-origin, out of process)."""
    found = re.findall(rf'button "{re.escape(FRAME_BUTTON)}"[^\n]*?\[ref=([^\]]+)\]', snapshot)
    if len(found) < 2:
        raise RuntimeError(f"no ref for {FRAME_BUTTON!r} in two iframes:\n{snapshot[:1500]}")
    return found[0], found[-1]


def button_ref(snapshot: str, name: str) -> str:
    match = re.search(rf'button "{re.escape(name)}"[^\n]*?\[ref=([^\]]+)\]', snapshot)
    if not match:
        raise RuntimeError(f"no ref for button {name!r} in the snapshot:\n{snapshot[:1500]}")
    return match.group(1)


class Ours:
    """The sidecar over HTTP."""

    def __init__(self, base: str, http: aiohttp.ClientSession, visible: bool) -> None:
        self.base, self.http, self.visible = base, http, visible

    async def open(self, url: str) -> None:
        async with self.http.get(self.base + "/tabs") as response:
            tab = (await response.json())[0]["id"]
        async with self.http.post(f"{self.base}/tabs/{tab}/navigate", json={"url": url}) as response:
            assert response.status == 200, await response.text()

    async def snapshot(self) -> str:
        async with self.http.get(self.base + "/snapshot") as response:
            assert response.status == 200, await response.text()
            return await response.text()

    async def change(self, index: int, n: int) -> None:
        body = {"kind": "evaluate", "function": f"() => {{ {RENAME.format(index=index, n=n)} }}", "mode": "cdp"}
        async with self.http.post(self.base + "/act", json=body) as response:
            assert response.status == 200, await response.text()

    async def click(self, ref: str, mode: str) -> None:
        async with self.http.post(self.base + "/act", json={"kind": "click", "ref": ref, "mode": mode}) as response:
            assert response.status == 200, await response.text()


class McpClient:
    """An MCP server over stdio through the SDK's client: ours or Playwright MCP."""

    def __init__(self, session: ClientSession, tools: dict[str, dict]) -> None:
        self.session, self.tools = session, tools

    async def call(self, name: str, arguments: dict) -> str:
        return text_of(await self.session.call_tool(name, arguments))


@asynccontextmanager
async def mcp_client(command: str, args: list[str], log: Path, env: dict[str, str] | None = None):
    server = StdioServerParameters(command=command, args=args, cwd=str(ROOT),
                                   env={**os.environ, **(env or {})})
    with open(log, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name: tool.inputSchema for tool in (await session.list_tools()).tools}
                yield McpClient(session, tools)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def bench_page(label: str, url: str, runs: int, ours: Ours, our_mcp: McpClient,
                     theirs: McpClient, elements: int) -> dict[str, dict[str, float]]:
    # An early row's button: within the default size bound of our snapshot on every page (the
    # 10,000-element page is cut at max_chars; the marker says how to ask for more).
    index = 5 if elements else 0
    target = f"Button {index}" if elements else "Top button"
    figures: dict[str, dict[str, float]] = {"ours": {}, "ours_mcp": {}, "pw_mcp": {}}

    # Ours over HTTP.
    await ours.open(url)
    first = await ours.snapshot()
    figures["ours"]["chars"] = len(first)
    figures["ours"]["snap"] = median([(await timed(ours.snapshot))[0] for _ in range(runs)])
    after = []
    for n in range(runs):
        await ours.change(index, n)
        after.append((await timed(ours.snapshot))[0])
    figures["ours"]["snap_change"] = median(after)
    # The renamed button keeps its ref (the element lives on).
    snapshot = await ours.snapshot()
    ref = button_ref(snapshot, f"Renamed {runs - 1}" if runs else target)
    figures["ours"]["click"] = median([(await timed(lambda: ours.click(ref, "cdp")))[0] for _ in range(runs)])
    if ours.visible:
        figures["ours"]["click_visible"] = median(
            [(await timed(lambda: ours.click(ref, "visible")))[0] for _ in range(runs)])

    if not elements:
        # A button inside an iframe: the first (same-origin) and the last (cross-origin).
        for kind, frame_ref in zip(FRAME_KINDS, frame_refs(snapshot)):
            figures["ours"][f"click_{kind}"] = median(
                [(await timed(lambda: ours.click(frame_ref, "cdp")))[0] for _ in range(runs)])
            if ours.visible:
                figures["ours"][f"click_{kind}_visible"] = median(
                    [(await timed(lambda: ours.click(frame_ref, "visible")))[0] for _ in range(runs)])

    # Ours through our MCP server (stdio): the same page, already open.
    figures["ours_mcp"]["snap"] = median(
        [(await timed(lambda: our_mcp.call("browser_snapshot", {})))[0] for _ in range(runs)])
    figures["ours_mcp"]["click"] = median([(await timed(lambda: our_mcp.call(
        "browser_act", {"kind": "click", "ref": ref, "mode": "cdp"})))[0] for _ in range(runs)])

    # Playwright MCP.
    await theirs.call("browser_navigate", {"url": url})
    first = await theirs.call("browser_snapshot", {})
    figures["pw_mcp"]["chars"] = len(first)
    figures["pw_mcp"]["snap"] = median(
        [(await timed(lambda: theirs.call("browser_snapshot", {})))[0] for _ in range(runs)])
    after = []
    for n in range(runs):
        await theirs.call("browser_evaluate", {"function": f"() => {{ {RENAME.format(index=index, n=n)} }}"})
        after.append((await timed(lambda: theirs.call("browser_snapshot", {})))[0])
    figures["pw_mcp"]["snap_change"] = median(after)
    snapshot = await theirs.call("browser_snapshot", {})
    their_ref = button_ref(snapshot, f"Renamed {runs - 1}" if runs else target)
    # Its click names the ref "target" in newer versions, "ref" in older ones.
    properties = theirs.tools["browser_click"].get("properties", {})
    click_args = {("target" if "target" in properties else "ref"): their_ref}
    if "element" in properties:
        click_args["element"] = f"Renamed {runs - 1} button"
    figures["pw_mcp"]["click"] = median(
        [(await timed(lambda: theirs.call("browser_click", click_args)))[0] for _ in range(runs)])
    if not elements:
        for kind, frame_ref in zip(FRAME_KINDS, frame_refs(snapshot)):
            frame_args = {**click_args, ("target" if "target" in properties else "ref"): frame_ref}
            if "element" in properties:
                frame_args["element"] = f"{FRAME_BUTTON} button"
            figures["pw_mcp"][f"click_{kind}"] = median(
                [(await timed(lambda: theirs.call("browser_click", frame_args)))[0] for _ in range(runs)])
    return figures


def report(label: str, figures: dict[str, dict[str, float]]) -> list[str]:
    ours, mcp, pw = figures["ours"], figures["ours_mcp"], figures["pw_mcp"]
    lines = [f"{label}:"]
    lines.append(f"  snapshot unchanged   ours {ours['snap']:7.1f} ms  ours-mcp {mcp['snap']:7.1f} ms  "
                 f"playwright-mcp {pw['snap']:7.1f} ms  ratio {ours['snap'] / pw['snap']:.2f} "
                 f"(mcp {mcp['snap'] / pw['snap']:.2f})")
    lines.append(f"  snapshot after change ours {ours['snap_change']:6.1f} ms  playwright-mcp "
                 f"{pw['snap_change']:7.1f} ms  ratio {ours['snap_change'] / pw['snap_change']:.2f}")
    lines.append(f"  size (chars)         ours {ours['chars']:7d}     playwright-mcp {pw['chars']:7d}     "
                 f"ratio {ours['chars'] / pw['chars']:.2f}")
    click = (f"  click by ref         ours cdp {ours['click']:6.1f} ms  ours-mcp {mcp['click']:6.1f} ms  "
             f"playwright-mcp {pw['click']:7.1f} ms  ratio {ours['click'] / pw['click']:.2f}")
    if "click_visible" in ours:
        click += f"  (ours visible {ours['click_visible']:.1f} ms, ratio {ours['click_visible'] / pw['click']:.2f})"
    lines.append(click)
    for kind, where in zip(FRAME_KINDS, ("same-origin", "cross-origin")):
        if f"click_{kind}" not in ours:
            continue
        line = (f"  click in {where:12s} ours cdp {ours[f'click_{kind}']:6.1f} ms  playwright-mcp "
                f"{pw[f'click_{kind}']:7.1f} ms  ratio {ours[f'click_{kind}'] / pw[f'click_{kind}']:.2f}")
        if f"click_{kind}_visible" in ours:
            visible = ours[f"click_{kind}_visible"]
            line += f"  (ours visible {visible:.1f} ms, ratio {visible / pw[f'click_{kind}']:.2f})"
        lines.append(line)
    return lines


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,10000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--visible", action="store_true",
                        help="also time visible-mode clicks (Xvfb + desktopd + a visible Chromium)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    cli = install_playwright_mcp()
    workdir = Path(tempfile.mkdtemp(prefix="bench-agent-"))
    runner, _port, urls = await serve_pages(sizes)
    children: list[Child] = []
    try:
        sidecar_args = [sys.executable, "-m", "sidecar", "--port", "0", "about:blank"]
        env = {"PYTHONPATH": str(ROOT)}
        if args.visible:
            xvfb, display = start_xvfb(workdir)
            children.append(xvfb)
            desktopd = Child([sys.executable, "-m", "desktopd", "--display", display, "--port", "0"],
                             workdir / "desktopd.log", env)
            children.append(desktopd)
            desktopd_url = desktopd.wait_for(LISTENING, 30).group(1)
            sidecar_args += ["--display", display, "--desktopd-url", desktopd_url,
                             "--window-size", f"{VIEWPORT[0]},{VIEWPORT[1] + 120}"]
            env["DISPLAY"] = display
        else:
            sidecar_args += ["--headless", "--window-size", f"{VIEWPORT[0]},{VIEWPORT[1]}"]
            desktopd_url = "http://127.0.0.1:9"
        sidecar = Child(sidecar_args, workdir / "sidecar.log", env)
        children.append(sidecar)
        base = sidecar.wait_for(re.compile(r"sidecar listening on (http://\S+)"), 60).group(1)
        sidecar.wait_for(re.compile("Chromium ready"), 60)
        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)))
            our_mcp = await stack.enter_async_context(mcp_client(
                sys.executable, ["-m", "sidecar.mcp", "--sidecar-url", base, "--desktopd-url", desktopd_url],
                workdir / "our-mcp.log", env))
            theirs = await stack.enter_async_context(mcp_client(
                "node", [str(cli), "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium,
                         "--viewport-size", f"{VIEWPORT[0]},{VIEWPORT[1]}", "--output-dir", str(workdir / "pw")],
                workdir / "playwright-mcp.log"))
            ours = Ours(base, http, args.visible)
            print(f"ours: sidecar at {base}{' (visible, desktopd ' + desktopd_url + ')' if args.visible else ' (headless)'}; "
                  f"theirs: {PLAYWRIGHT_MCP} on {chromium} (headless); medians of {args.runs} runs")
            for label, url in urls.items():
                elements = int(label.split()[0]) if label[0].isdigit() else 0
                figures = await bench_page(label, url, args.runs, ours, our_mcp, theirs, elements)
                print("\n".join(report(label, figures)), flush=True)
    finally:
        for child in reversed(children):
            child.stop()
        await runner.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
