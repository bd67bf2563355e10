#!/usr/bin/env python3
"""Compare OCR engines on a screen we draw and therefore know (tests/vision/truth.py): word
recall, precision and box IoU against the truth, and the time of a full 1920x1080 screen and of
a 400x200 region, wall clock and CPU seconds, as medians and as ratios to Tesseract in the same
run (the machine is shared: the ratio is the figure to compare).

  * tesseract: desktopd.vision.tesseract (what the Chromium image ships);
  * rapidocr: RapidOCR's PP-OCRv4 models in ONNX Runtime (scripts/ocr_rapid.py), when
    rapidocr-onnxruntime is installed in this interpreter (`pip install rapidocr-onnxruntime`).
Usage: .venv/bin/python scripts/bench_ocr.py [--runs 3] [--min-confidence 0.3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from desktopd.vision.tesseract import TesseractEngine
from desktopd.vision.text import Line, OcrEngine
from tests.vision.truth import score, synthetic_screen

REGION = (0, 0, 400, 200)


def confident(lines: list[Line], minimum: float) -> list[Line]:
    return [Line(tuple(w for w in line.words if w.confidence >= minimum), line.box, line.confidence)
            for line in lines]


def timed(engine: OcrEngine, image, runs: int) -> tuple[float, float, list[Line]]:
    walls, cpus = [], []
    lines: list[Line] = []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        lines = engine.read(image)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--min-confidence", type=float, default=0.3)
    args = parser.parse_args()
    engines: list[OcrEngine] = [TesseractEngine()]
    try:
        from ocr_rapid import RapidEngine
        engines.append(RapidEngine())
    except ImportError as exc:
        print(f"rapidocr: not installed ({exc}); Tesseract alone", file=sys.stderr)
    screen, truth = synthetic_screen()
    region = screen.crop((REGION[0], REGION[1], REGION[0] + REGION[2], REGION[1] + REGION[3]))
    region_truth = [t for t in truth if t.box.x + t.box.width <= REGION[2] and t.box.y + t.box.height <= REGION[3]]
    base: tuple[float, float, float, float] | None = None
    for engine in engines:
        full_wall, full_cpu, lines = timed(engine, screen, args.runs)
        part_wall, part_cpu, part_lines = timed(engine, region, args.runs)
        full = score(confident(lines, args.min_confidence), truth)
        part = score(confident(part_lines, args.min_confidence), region_truth)
        base = base or (full_wall, full_cpu, part_wall, part_cpu)
        print(f"{engine.name} {engine.version}: full screen {full_wall * 1000:.0f} ms wall "
              f"({full_wall / base[0]:.2f}x), {full_cpu * 1000:.0f} ms CPU ({full_cpu / base[1]:.2f}x); "
              f"400x200 region {part_wall * 1000:.0f} ms wall ({part_wall / base[2]:.2f}x), "
              f"{part_cpu * 1000:.0f} ms CPU ({part_cpu / base[3]:.2f}x)")
        print(f"    screen: recall {full.recall:.3f} precision {full.precision:.3f} box IoU "
              f"{full.mean_iou:.3f} ({full.truth_words} true words, {full.read_words} read); "
              f"region: recall {part.recall:.3f} precision {part.precision:.3f} IoU {part.mean_iou:.3f}")


if __name__ == "__main__":
    main()
