#!/usr/bin/env python3
"""desktopd benchmark: screenshots and input on a 1920x1080 Xvfb, each beside a subprocess
baseline measured in the same run (ImageMagick import, xwd, xdotool).

    .venv/bin/python benchmarks/bench_desktopd.py [--rounds 15] [--skip-http]

Starts its own Xvfb (-displayfd), puts realistic content on it (a gradient photo and xterms full
of text), measures in-process (desktopd.x11) and, if `python -m desktopd` exists, end to end over
HTTP on a free loopback port. Prints medians in milliseconds; every loop is bounded. Stops
exactly the processes it started."""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from desktopd.x11 import encode as enc  # noqa: E402
from desktopd.x11.desktop import X11Desktop  # noqa: E402
from testbed.processes import terminate  # noqa: E402
from testbed.xvfb import start_xvfb  # noqa: E402

WIDTH, HEIGHT = 1920, 1080


def median_ms(fn: Callable[[], object], rounds: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def medians_interleaved(fns: list[Callable[[], object]], rounds: int) -> list[float]:
    """Medians of several functions measured round-robin, so load from other processes on a
    shared machine hits every candidate alike (a fair comparison even when absolute figures
    drift)."""
    for fn in fns:
        fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            samples[index].append(time.perf_counter() - start)
    return [statistics.median(values) * 1000 for values in samples]


def run(argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    def call() -> None:
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
    return call


def row(label: str, ours: float | None, baseline: float | None = None,
        baseline_label: str = "") -> None:
    text = f"  {label:<44} {ours:9.2f} ms" if ours is not None else f"  {label:<44} {'-':>9}   "
    if baseline is not None:
        if not ours:
            ratio = ""
        elif baseline >= ours:
            ratio = f"{baseline / ours:6.1f}x faster"
        else:
            ratio = f"{ours / baseline:6.1f}x slower"
        text += f"   | {baseline_label:<30} {baseline:9.2f} ms  {ratio}"
    print(text, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Content:
    """A gradient photo behind three xterms full of text: what a screen usually looks like."""

    def __init__(self, env: dict[str, str], workdir: Path, desk: X11Desktop) -> None:
        self.processes: list[subprocess.Popen] = []
        gradient = Image.linear_gradient("L").resize((WIDTH, HEIGHT))
        photo = Image.merge("RGB", (gradient, gradient.transpose(Image.FLIP_LEFT_RIGHT),
                                    gradient.rotate(90).resize((WIDTH, HEIGHT))))
        path = workdir / "gradient.png"
        photo.save(path)
        if shutil.which("display"):
            # The photo first and mapped before the terminals, so they stack above it.
            self._start(["display", "-geometry", "+0+0", "-title", "photo", str(path)], env)
            self.wait_mapped(desk)
        listing = "ls -la /usr/bin | head -70; cat /etc/os-release"
        for index, geometry in enumerate(("100x40+40+40", "90x50+700+120", "120x30+200+600")):
            self._start(["xterm", "-geometry", geometry, "-title", f"term{index}", "-hold",
                         "-e", "sh", "-c", listing], env)

    def _start(self, argv: list[str], env: dict[str, str]) -> None:
        self.processes.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))

    def wait_mapped(self, desk: X11Desktop, timeout: float = 20.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            count = sum(1 for w in desk.windows() if w["visible"])
            if count >= len(self.processes):
                break
            time.sleep(0.1)  # bounded wait for independent apps to map their windows
        time.sleep(1.0)  # let them paint (no signal for "an app finished drawing")
        return sum(1 for w in desk.windows() if w["visible"])

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


class Server:
    """`python -m desktopd` as a subprocess on a free port, reached over one keep-alive connection."""

    def __init__(self, display: str, env: dict[str, str], log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        # The log goes to a file: an unread pipe would fill up and stall the server.
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "desktopd", "--display", display, "--host", "127.0.0.1",
                 "--port", str(self.port), "--log-level", "WARNING"], cwd=ROOT,
                env={**env, "DESKTOPD_TOKEN": ""}, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("desktopd exited: " + log_path.read_text()[-2000:])
            try:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                status, _ = self.request("GET", "/health")
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("desktopd did not become healthy within 30 s")
            time.sleep(0.1)  # bounded readiness wait for a process we do not control

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if payload else {}
        self.conn.request(method, path, body=payload, headers=headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def ok(self, method: str, path: str, body: dict | None = None) -> bytes:
        status, data = self.request(method, path, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path} -> {status}: {data[:300]!r}")
        return data

    def stop(self) -> None:
        self.conn.close()
        terminate(self.process)


def pillow_png(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **options)
    return buffer.getvalue()


def bench_capture(desk: X11Desktop, env: dict[str, str], rounds: int, tmp: Path) -> None:
    print("\nCapture, 1920x1080 (median)")
    import_ms = median_ms(run(["import", "-window", "root", str(tmp / "shot.png")], env),
                          max(3, rounds // 3), warmup=1) if shutil.which("import") else None
    xwd_ms = median_ms(run(["sh", "-c", "xwd -root -silent > /dev/null"], env), rounds) \
        if shutil.which("xwd") else None
    shm = desk._capturer._shm
    if shm is not None:
        row("MIT-SHM grab only (no copy)", median_ms(lambda: shm.grab(0, 0, WIDTH, HEIGHT), rounds),
            xwd_ms, "xwd -root > /dev/null")
    row("capture_raw (BGRX bytes)", median_ms(desk.capture_raw, rounds), xwd_ms,
        "xwd -root > /dev/null")
    row("capture -> PIL RGB", median_ms(desk.capture, rounds), xwd_ms, "xwd -root > /dev/null")
    row("capture, cursor composited", median_ms(lambda: desk.capture(cursor=True), rounds))
    row("capture region 800x600", median_ms(lambda: desk.capture((100, 100, 800, 600)), rounds))
    fallback = X11Desktop(desk.display_name, use_shm=False)
    try:
        row("capture via XGetImage fallback", median_ms(fallback.capture, rounds), xwd_ms,
            "xwd -root > /dev/null")
    finally:
        fallback.close()

    print("\nCapture + encode, 1920x1080 (median; size of one frame)")
    image = desk.capture()
    cases = [
        ("png (desktopd fast_png)", lambda: enc.encode(desk.capture(), "png").data),
        ("png (Pillow compress_level=1)", lambda: pillow_png(desk.capture(), compress_level=1)),
        ("png (Pillow default level 6)", lambda: pillow_png(desk.capture())),
        ("jpeg q80", lambda: enc.encode(desk.capture(), "jpeg").data),
        ("webp q80 method 0", lambda: enc.encode(desk.capture(), "webp").data),
        ("raw RGB", lambda: enc.encode(desk.capture(), "raw").data),
        ("png, max_width=1280", lambda: enc.encode(desk.capture(), "png", max_width=1280).data),
        ("jpeg, scale=0.5", lambda: enc.encode(desk.capture(), "jpeg", scale=0.5).data),
    ]
    print("  (measured round-robin; baseline: ImageMagick, which also captures and encodes)")
    figures = medians_interleaved([fn for _, fn in cases], rounds)
    for (label, fn), figure in zip(cases, figures):
        size = len(fn())
        row(f"{label} [{size / 1024:.0f} KiB]", figure, import_ms, "import -window root x.png")
    png_only = median_ms(lambda: enc.fast_png(image), rounds)
    row("fast_png encode alone (no capture)", png_only)
    encoder = enc.FrameEncoder()
    row("png of an unchanged screen (FrameEncoder)",
        median_ms(lambda: encoder.encode(desk.capture(), "png"), rounds))


def bench_input(desk: X11Desktop, env: dict[str, str], rounds: int) -> None:
    print("\nInput, in-process XTEST (median per action, synced with the server)")
    mousemove = median_ms(run(["xdotool", "mousemove", "500", "500"], env), rounds)
    row("pointer_move", median_ms(lambda: desk.pointer_move(510, 505), rounds), mousemove,
        "xdotool mousemove")
    click = median_ms(run(["xdotool", "click", "1"], env), rounds)

    def click_once() -> None:
        desk.pointer_button(1, True)
        desk.pointer_button(1, False)
    desk.pointer_move(1900, 1070)  # an empty corner: the clicks land on the root
    row("click (down+up)", median_ms(click_once, rounds), click, "xdotool click 1")
    row("scroll 1 click", median_ms(lambda: desk.scroll(0, 1), rounds))
    key = median_ms(run(["xdotool", "key", "shift"], env), rounds)

    def tap_shift() -> None:
        desk.key("shift", True)
        desk.key("shift", False)
    row("key press (down+up)", median_ms(tap_shift, rounds), key, "xdotool key shift")
    xdo_type = median_ms(run(["xdotool", "type", "hello world"], env), max(5, rounds // 2))
    row('type_text("hello world")', median_ms(lambda: desk.type_text("hello world"), rounds),
        xdo_type, 'xdotool type "hello world"')
    row('type_text("日本語 😀") (scratch keycodes)',
        median_ms(lambda: desk.type_text("日本語 😀"), rounds))
    row("windows() tree", median_ms(desk.windows, rounds))


def bench_http(display: str, env: dict[str, str], rounds: int, count: int, tmp: Path) -> None:
    if not (ROOT / "desktopd" / "__main__.py").exists():
        print("\nHTTP: skipped (python -m desktopd does not exist yet)")
        return
    print("\nEnd to end over HTTP (python -m desktopd on loopback, keep-alive; median)")
    try:
        server = Server(display, env, tmp / "desktopd.log")
    except RuntimeError as exc:
        print(f"  skipped: {exc}")
        return
    try:
        import_ms = median_ms(run(["import", "-window", "root", "/tmp/bench-import.png"], env),
                              max(3, rounds // 3), warmup=1) if shutil.which("import") else None
        for fmt in ("png", "jpeg", "webp"):
            path = f"/api/v1/screenshot?format={fmt}"
            size = len(server.ok("GET", path))
            row(f"GET screenshot {fmt} [{size / 1024:.0f} KiB]",
                median_ms(lambda: server.ok("GET", path), rounds), import_ms,
                "import -window root x.png")
        row("GET screenshot png max_width=1280",
            median_ms(lambda: server.ok("GET", "/api/v1/screenshot?format=png&max_width=1280"),
                      rounds))
        mousemove = median_ms(run(["xdotool", "mousemove", "500", "500"], env), rounds)
        row("POST tablet tap", median_ms(lambda: server.ok(
            "POST", "/api/v1/tablet", {"x": 1900, "y": 1070, "action": "tap"}), rounds),
            mousemove, "xdotool mousemove")
        xdo_type = median_ms(run(["xdotool", "type", "hello world"], env), max(5, rounds // 2))
        row('POST keyboard text "hello world"', median_ms(lambda: server.ok(
            "POST", "/api/v1/keyboard", {"text": "hello world"}), rounds), xdo_type,
            'xdotool type "hello world"')
        row("GET tree", median_ms(lambda: server.ok("GET", "/api/v1/tree"), rounds))
        # Requests per second on a small endpoint, one keep-alive client, bounded count.
        start = time.perf_counter()
        for _ in range(count):
            server.ok("GET", "/health")
        elapsed = time.perf_counter() - start
        print(f"  {'GET /health, sequential keep-alive':<44} {count / elapsed:9.0f} req/s"
              f"   ({count} requests in {elapsed:.2f} s)")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--requests", type=int, default=2000, help="for the requests/s figure")
    parser.add_argument("--skip-http", action="store_true")
    args = parser.parse_args()
    for tool in ("Xvfb", "xdotool", "xterm"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is missing (scripts/test.sh installs the Debian packages)")

    with tempfile.TemporaryDirectory(prefix="desktopd-bench-") as tmpdir:
        tmp = Path(tmpdir)
        xvfb = start_xvfb(WIDTH, HEIGHT, log_path=str(tmp / "xvfb.log"))
        env = {**os.environ, "DISPLAY": xvfb.display}
        content = desk = None
        try:
            desk = X11Desktop(xvfb.display)
            content = Content(env, tmp, desk)
            windows = content.wait_mapped(desk)
            info = desk.info()
            print(f"desktopd benchmark on {xvfb.display} {WIDTH}x{HEIGHT}, {windows} windows, "
                  f"capture={info['capture_backend']}, cores={os.cpu_count()}, "
                  f"python {sys.version.split()[0]}, Pillow {Image.__version__}")
            bench_capture(desk, env, args.rounds, tmp)
            bench_input(desk, env, args.rounds * 2)
            if args.skip_http:
                print("\nHTTP: skipped (--skip-http)")
            else:
                desk.close()  # the server gets the display to itself
                bench_http(xvfb.display, env, args.rounds, args.requests, tmp)
        finally:
            if desk is not None:
                desk.close()
                desk.executor.shutdown(wait=True)
            if content is not None:
                content.stop()
            xvfb.stop()


if __name__ == "__main__":
    main()
