#!/usr/bin/env python3
"""The vision act loop's own cost per step, beside the model's latency: a fresh 1920x1080 Xvfb,
desktopd, and a local server answering in the chat grounding format (testbed/vendor_server.py)
with a click every time, so the model's latency is near zero and what is left is the loop:
screenshot (PNG at screen size), request encoding, the click, the settle. Baseline in the same
run: POST /api/v1/step with the same click and a PNG screenshot (the harness's own step).
Printed: medians in ms and the ratio loop step / /step.
Usage: .venv/bin/python benchmarks/bench_vision_act.py [--steps 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from testbed.desktopd import start_desktopd
from testbed.vendor_server import VendorServer
from testbed.xvfb import start_xvfb

CLICK = {"id": "c", "choices": [{"message": {"role": "assistant",
                                             "content": '{"action": "click", "x": 900, "y": 500}'}}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    server = start_xvfb(1920, 1080)
    vendor = VendorServer()
    try:
        with tempfile.TemporaryDirectory() as folder:
            models = Path(folder) / "models.json"
            models.write_text(json.dumps({"models": {"g": {"api": "chat", "base_url": vendor.url, "model": "m"}}}))
            desktopd = start_desktopd(server.display, env={"DESKTOPD_VISION_MODELS": str(models)})
            try:
                vendor.script("/v1/chat/completions", then=CLICK)
                answer = desktopd.request("POST", "/api/v1/vision/act",
                                          json={"instruction": "bench", "max_steps": args.steps}).json()
                steps = answer["trace"]
                overhead = statistics.median(s["overhead_ms"] for s in steps)
                latency = statistics.median(s["model_latency_ms"] for s in steps)
                plain = []
                for _ in range(args.steps):
                    started = time.perf_counter()
                    desktopd.request("POST", "/api/v1/step", json={
                        "tablet": {"action": "click", "x": 900, "y": 500}, "screenshot": {"format": "png"}})
                    plain.append((time.perf_counter() - started) * 1000)
                baseline = statistics.median(plain)
                print(f"vision/act loop: {overhead:.1f} ms own overhead per step (median of {len(steps)}), "
                      f"model latency {latency:.1f} ms (local stand-in)")
                print(f"POST /api/v1/step click + PNG: {baseline:.1f} ms; loop step / step = {overhead / baseline:.2f}x")
            finally:
                desktopd.stop()
    finally:
        vendor.stop()
        server.stop()


if __name__ == "__main__":
    main()
