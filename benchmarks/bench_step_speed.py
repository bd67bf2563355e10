#!/usr/bin/env python3
"""Benchmark a step whose click changes the screen, this tree against a baseline checkout, in one
run (issue 40's "a changing step at 30 a second").

Two stacks side by side, each on a fresh 1920x1080 Xvfb of its own with its own sidecar
(Chromium) and desktopd: this tree's, and the baseline revision's (checked out into a temporary
git worktree; default: main). The page is testbed/pages/step-flip.html: a full-window button that
flips white/black at each click, clicked at four points in turn (never a double click). Steps:

  * Anthropic ``left_click`` with its PNG, at 1920x1080 and at display_width_px=1280 (x800);
  * ``DesktopEnv.step`` (the harness kit) with a 1280x800 JPEG observation.

Blocks of steps alternate between the stacks (the order swapped each round), so a busy moment
of the shared host falls on both. Printed per step: median wall ms and steps/s, CPU ms per step
(the stack's processes: Xvfb, desktopd, sidecar and Chromium, plus this client), how many
screenshots showed their flip, and the ratios new/baseline. Then a breakdown of a changing step:
the act (POST /api/v1/step's own timing), the settle's wait (the answers' waited_s), capture,
scale and encode of the changed screen (in this process, this tree's code against the
baseline's encoder and the LANCZOS scaling it used), and the rest (HTTP, JSON, base64, the
client's decode).

Usage: .venv/bin/python benchmarks/bench_step_speed.py [--baseline REV] [--steps 40] [--block 10]
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopd_kit import Desktop  # noqa: E402
from desktopd_kit.env import DesktopEnv  # noqa: E402
from testbed.pages import PageServer, free_port  # noqa: E402
from testbed.processes import terminate  # noqa: E402
from testbed.xvfb import Xvfb, start_xvfb  # noqa: E402

WIDTH, HEIGHT = 1920, 1080
SCALED = (1280, 800)
# Far apart inside the page (screen pixels): one click each, never a double click.
POINTS = ((300, 300), (1500, 300), (300, 900), (1500, 900))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])      # utime, stime
    return total / TICK


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


@dataclass
class Stack:
    """Xvfb + sidecar + desktopd of one checkout."""

    name: str
    tree: Path
    xvfb: Xvfb
    procs: list[subprocess.Popen] = field(default_factory=list)
    desktop_url: str = ""
    sidecar_url: str = ""

    @classmethod
    def start(cls, name: str, tree: Path, url: str, logs: str) -> Stack:
        xvfb = start_xvfb(WIDTH, HEIGHT, log_path=os.path.join(logs, f"xvfb-{name}.log"))
        stack = cls(name, tree, xvfb)
        log = open(os.path.join(logs, f"{name}.log"), "ab")
        stack.sidecar_url = f"http://127.0.0.1:{free_port()}"
        stack.desktop_url = f"http://127.0.0.1:{free_port()}"
        stack.procs.append(subprocess.Popen(
            [sys.executable, "-m", "sidecar", url, "--display", xvfb.display,
             "--port", stack.sidecar_url.rsplit(":", 1)[1]], cwd=tree, stdout=log, stderr=log,
            start_new_session=True))
        stack.procs.append(subprocess.Popen(
            [sys.executable, "-m", "desktopd", "--display", xvfb.display,
             "--port", stack.desktop_url.rsplit(":", 1)[1]], cwd=tree, stdout=log, stderr=log,
            env={**os.environ, "DESKTOPD_SIDECAR_URL": stack.sidecar_url}))
        log.close()
        return stack

    def pids(self) -> dict[str, list[int]]:
        """The stack's processes by part: the X server, the browser (sidecar and Chromium), desktopd."""
        sidecar, desktopd = self.procs
        return {"Xvfb": [self.xvfb.process.pid], "sidecar + Chromium": descendants(sidecar.pid),
                "desktopd": descendants(desktopd.pid)}

    def stop(self) -> None:
        for proc in reversed(self.procs):
            terminate(proc, group=proc.args[2] == "sidecar")
        self.xvfb.stop()


@dataclass
class Way:
    """One kind of step on one stack, and what its blocks measured."""

    step: Callable[[int], int]     # step i -> the colour the answer shows at the page's middle
    walls: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)    # seconds, by part
    steps: int = 0
    shown: int = 0
    last: int | None = None
    settled: list[dict] = field(default_factory=list)    # each answer's
    missed: list[dict] = field(default_factory=list)     # the settled of steps whose flip was not shown

    def block(self, start: int, count: int, pids: dict[str, list[int]]) -> None:
        before = {part: cpu_seconds(group) for part, group in pids.items()}
        mine_before = time.process_time()
        for i in range(start, start + count):
            began = time.perf_counter()
            colour = self.step(i)
            self.walls.append(time.perf_counter() - began)
            if self.last is not None and colour != self.last:
                self.shown += 1
            elif self.last is not None:
                self.missed.append(self.settled[-1])
            self.last = colour
        self.cpu["client"] = self.cpu.get("client", 0.0) + time.process_time() - mine_before
        for part, group in pids.items():
            self.cpu[part] = self.cpu.get(part, 0.0) + cpu_seconds(group) - before[part]
        self.steps += count


def waited_ms(way: Way) -> float:
    return statistics.median(s["waited_s"] for s in way.settled) * 1000


def middle_of_png(data: str) -> int:
    image = Image.open(io.BytesIO(base64.b64decode(data))).convert("L")
    return image.getpixel((image.width // 2, image.height // 2)) or 0   # type: ignore[return-value]


def anthropic_way(desktop: Desktop, scaled: bool) -> Way:
    width, height = SCALED if scaled else (None, None)

    def step(i: int) -> int:
        x, y = POINTS[i % len(POINTS)]
        if scaled:
            x, y = x * SCALED[0] // WIDTH, y * SCALED[1] // HEIGHT
        answer = desktop.anthropic({"action": "left_click", "coordinate": [x, y]},
                                   display_width_px=width, display_height_px=height)
        way.settled.append(answer["settled"])
        image = next(block for block in answer["content"] if block["type"] == "image")
        return middle_of_png(image["source"]["data"])
    way = Way(step)
    return way


def env_way(env: DesktopEnv) -> Way:
    def step(i: int) -> int:
        x, y = POINTS[i % len(POINTS)]
        observation, _reward, _done, _truncated, info = env.step(
            {"type": "click", "x": x * SCALED[0] // WIDTH, "y": y * SCALED[1] // HEIGHT})
        way.settled.append(info["settled"])
        frame = observation["screenshot"]
        return int(frame[frame.shape[0] // 2, frame.shape[1] // 2].mean())
    way = Way(step)
    return way


def open_flip(desktop: Desktop, url: str) -> None:
    tab = next(t for t in desktop.tabs() if t["visible"])
    desktop.navigate(tab["id"], url)
    desktop.step(settle=5.0, settle_quiet=0.5)


def flip_data_url() -> str:
    """The flip page as a data: URL, for a browser that cannot reach this host (a container's)."""
    html = (ROOT / "testbed/pages/step-flip.html").read_bytes()
    return "data:text/html;base64," + base64.b64encode(html).decode("ascii")


CASES = ("Anthropic left_click + PNG 1920x1080", "Anthropic left_click + PNG 1280x800",
         "DesktopEnv.step, 1280x800 JPEG")


def changing_steps(urls: list[tuple[str, str]], flip: str, steps: int, block: int,
                   pids: Callable[[], list[dict[str, list[int]]]] | None = None) -> list[tuple[str, list[Way]]]:
    """Each case's steps on each desktop (desktopd's and the sidecar's URL; a 1920x1080 screen),
    in blocks of ``block`` alternated between the desktops (the order swapped each round) after
    a warm-up; ``pids``: each desktop's processes by part (read once the browsers run), whose
    CPU is counted."""
    desktops = [Desktop(desktop_url, sidecar_url=sidecar_url) for desktop_url, sidecar_url in urls]
    envs: list[DesktopEnv] = []
    try:
        for desktop in desktops:
            desktop.wait_until_healthy(timeout=120)
            open_flip(desktop, flip)
        envs = [DesktopEnv(desktop_url, sidecar_url=sidecar_url, screenshot_format="jpeg", screenshot_size=SCALED)
                for desktop_url, sidecar_url in urls]
        for env in envs:
            env.reset(options={"urls": [flip]})
        cases = [(CASES[0], [anthropic_way(d, False) for d in desktops]),
                 (CASES[1], [anthropic_way(d, True) for d in desktops]),
                 (CASES[2], [env_way(e) for e in envs])]
        parts = pids() if pids else [{} for _ in urls]
        for _name, ways in cases:
            for way in ways:               # warm-up: the page's tracker, caches, first frames
                for i in range(4):
                    way.step(i)
                way.last, way.settled, way.missed = None, [], []
            for r in range(-(-steps // block)):
                for k in (range(len(ways)) if r % 2 == 0 else reversed(range(len(ways)))):
                    ways[k].block(r * block, block, parts[k])
        return cases
    finally:
        for env in envs:
            env.close()
        for desktop in desktops:
            desktop.close()


def act_ms(desktop: Desktop, steps: int) -> float:
    """The act alone: POST /api/v1/step with a click, no settle, no image (its own timing)."""
    acts = []
    for i in range(steps):
        x, y = POINTS[i % len(POINTS)]
        answer = desktop.step({"tablet": {"action": "click", "x": x, "y": y}}, screenshot=None, settle=0)
        acts.append(answer["timings"]["act"])
    return statistics.median(acts) * 1000


def load_encoder(tree: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"encode_{abs(hash(tree))}", tree / "desktopd/x11/encode.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module         # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def timed(fn: Callable[[], object], runs: int = 15) -> tuple[float, float]:
    """Median wall ms and mean CPU ms of ``fn()``."""
    walls = []
    cpu = time.process_time()
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - began)
    return statistics.median(walls) * 1000, (time.process_time() - cpu) / runs * 1000


def pipeline(display: str, old: ModuleType) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
    """Capture, scale and encode of the screen as it is, this tree's way and the baseline's."""
    from desktopd.x11 import encode as new
    from desktopd.x11.capture import Capturer
    from desktopd.x11.connection import open_display
    capturer = Capturer(open_display(display, "bench capture"), display)
    try:
        image = capturer.capture()
        capture = timed(capturer.capture)
    finally:
        capturer.close()
    small = new.resized(image, *SCALED)

    def jpeg(encoder: ModuleType) -> Callable[[], object]:
        return lambda: encoder.encode(image, "jpeg", max_width=SCALED[0], max_height=SCALED[1])
    return {
        "capture 1080p (MIT-SHM + to RGB)": (capture, capture),
        "scale to 1280x800": (timed(lambda: new.resized(image, *SCALED)),
                              timed(lambda: image.resize(SCALED, Image.Resampling.LANCZOS))),
        "PNG 1080p": (timed(lambda: new.fast_png(image)), timed(lambda: old.fast_png(image))),
        "PNG 1280x800": (timed(lambda: new.fast_png(small)), timed(lambda: old.fast_png(small))),
        "JPEG 1080p": (timed(lambda: new.encode(image, "jpeg")), timed(lambda: old.encode(image, "jpeg"))),
        "JPEG max 1280x800 (kit)": (timed(jpeg(new)), timed(jpeg(old))),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default="main", help="git revision to compare against")
    parser.add_argument("--steps", type=int, default=40, help="measured steps per way and stack")
    parser.add_argument("--block", type=int, default=10, help="steps in a row on one stack")
    args = parser.parse_args()
    logs = tempfile.mkdtemp(prefix="bench-step-speed-")
    base_tree = Path(logs) / "baseline"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base_tree), args.baseline], cwd=ROOT,
                   check=True)
    rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    pages = PageServer()
    flip = pages.url("step-flip.html")
    stacks: list[Stack] = []
    try:
        stacks = [Stack.start("new", ROOT, flip, logs), Stack.start("baseline", base_tree, flip, logs)]
        cases = changing_steps([(s.desktop_url, s.sidecar_url) for s in stacks], flip, args.steps, args.block,
                               lambda: [s.pids() for s in stacks])
        desktops = [Desktop(s.desktop_url, sidecar_url=s.sidecar_url) for s in stacks]
        acts = [act_ms(d, 20) for d in desktops]
        open_flip(desktops[0], pages.url("settle-docs.html"))
        stages = pipeline(stacks[0].xvfb.display, load_encoder(base_tree))
        for desktop in desktops:
            desktop.close()
    finally:
        for stack in stacks:
            stack.stop()
        pages.stop()
        subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)], cwd=ROOT, check=False)
    print(f"changing step (step-flip.html, {WIDTH}x{HEIGHT} screen), {args.steps} steps per way in blocks "
          f"of {args.block}, alternated; baseline {args.baseline} ({rev}); logs in {logs}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'step':<38}{'new/s':>7}{'base/s':>8}{'x wall':>8}{'new CPU ms':>12}{'base CPU ms':>13}"
          f"{'x CPU':>7}{'flips shown new/base':>22}")
    for name, (new, base) in cases:
        n, b = statistics.median(new.walls), statistics.median(base.walls)
        nc, bc = sum(new.cpu.values()) / new.steps * 1000, sum(base.cpu.values()) / base.steps * 1000
        print(f"{name:<38}{1 / n:>7.1f}{1 / b:>8.1f}{b / n:>8.2f}{nc:>12.1f}{bc:>13.1f}{bc / nc:>7.2f}"
              f"{f'{new.shown}/{new.steps - 1}  {base.shown}/{base.steps - 1}':>22}")
    for name, ways in cases:
        for label, way in zip(("new", "baseline"), ways):
            for settled in way.missed:
                print(f"  flip not shown, {name}, {label}: {settled}")
    print("\nwhere a changing step's time goes (median wall ms; capture/scale/encode: wall / CPU ms, "
          "on a docs-like page, in this process)")
    print(f"{'part':<38}{'new':>16}{'baseline':>16}")
    print(f"{'act (input, synced)':<38}{acts[0]:>16.1f}{acts[1]:>16.1f}")
    for name, (new, base) in cases:
        print(f"{'settle wait, ' + name:<38}{waited_ms(new):>16.1f}{waited_ms(base):>16.1f}")
    for name, (new, base) in cases:
        print(f"CPU ms per step by process, {name}:")
        for part in new.cpu:
            print(f"  {part:<36}{new.cpu[part] / new.steps * 1000:>16.1f}{base.cpu[part] / base.steps * 1000:>16.1f}")
    for part, (new_t, base_t) in stages.items():
        print(f"{part:<38}{f'{new_t[0]:.1f} / {new_t[1]:.1f}':>16}{f'{base_t[0]:.1f} / {base_t[1]:.1f}':>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
