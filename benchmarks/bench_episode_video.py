#!/usr/bin/env python3
"""What bringing an episode's video home costs, against the old in-memory download, in one run.

A fresh Xvfb (1280x800) whose screen a Tk window repaints with random rectangles 20 times a
second (so the encoder has work and the file has a size), and desktopd; for each length, a
recording of that many seconds at 10 fps, then:
  * home: bring_home, what VideoClock.finish does after the stop (streamed download with
    SHA-256, size/checksum check, ffprobe, DELETE on the desktop), the kit's way now;
  * in memory: Desktop.recording(id) of the same file (the body whole in memory), the baseline;
and the peak memory (max RSS) each adds. Usage: .venv/bin/python benchmarks/bench_episode_video.py
[--seconds 10 60]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_env import start_xvfb, stop  # noqa: E402

from desktopd_kit import Desktop  # noqa: E402
from desktopd_kit.records.video import VideoClock, bring_home  # noqa: E402
from testbed.desktopd import start_desktopd  # noqa: E402

PAINTER = """
import random, tkinter
random.seed(20261207)   # the same rectangles every run
root = tkinter.Tk(); root.geometry("1280x800+0+0")
canvas = tkinter.Canvas(root, width=1280, height=800); canvas.pack()
def paint():
    canvas.delete("all")
    for _ in range(60):
        x, y = random.randrange(1280), random.randrange(800)
        canvas.create_rectangle(x, y, x + 120, y + 80, fill="#%06x" % random.randrange(1 << 24), width=0)
    root.after(50, paint)
paint(); root.mainloop()
"""


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_length(desktop: Desktop, seconds: float, directory: Path) -> dict:
    clock = VideoClock(desktop)
    clock.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        desktop.move(640, 400)          # the kit's requests while it records (a step's worth)
        time.sleep(0.2)
    info = clock.stop()                   # the baseline reads the file before bring_home deletes it
    rss = max_rss_mib()
    started = time.monotonic()
    body = desktop.recording(info["id"])
    in_memory_s = time.monotonic() - started
    in_memory_rss = max_rss_mib() - rss
    size = len(body)
    del body
    rss = max_rss_mib()
    started = time.monotonic()
    video = bring_home(desktop, info, directory, [])
    home_s = time.monotonic() - started
    return {"seconds": seconds, "mib": size / 2**20, "in_memory_s": in_memory_s, "home_s": home_s,
            "in_memory_rss": in_memory_rss, "home_rss": max_rss_mib() - rss, "video": video}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, nargs="+", default=[10.0, 60.0])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "xvfb.log", "wb") as log:
        xvfb, display = start_xvfb(log)
        painter = subprocess.Popen(["/usr/bin/python3", "-c", PAINTER], env={**os.environ, "DISPLAY": display})
        server = start_desktopd(display, "--recording-dir", str(Path(tmp) / "recordings"))
        try:
            with Desktop(server.url) as desktop:
                desktop.wait_until_healthy(timeout=30)
                print("| video | MiB | in memory (s) | home: stream + sha256 + ffprobe + delete (s) | home / in memory "
                      "| max RSS added, in memory / home (MiB) |")
                print("| --- | --- | --- | --- | --- | --- |")
                for seconds in sorted(args.seconds):   # max RSS only grows: smaller first
                    directory = Path(tmp) / f"episode-{seconds:g}"
                    directory.mkdir()
                    r = one_length(desktop, seconds, directory)
                    assert r["video"]["status"] == "complete", r["video"]
                    print(f"| {r['seconds']:g} s ({r['video']['frames']} frames) | {r['mib']:.1f} | "
                          f"{r['in_memory_s']:.3f} | {r['home_s']:.3f} | {r['home_s'] / r['in_memory_s']:.2f}x | "
                          f"{r['in_memory_rss']:.1f} / {r['home_rss']:.1f} |")
        finally:
            server.stop()
            painter.terminate()
            painter.wait(10)
            stop(xvfb)


if __name__ == "__main__":
    main()
