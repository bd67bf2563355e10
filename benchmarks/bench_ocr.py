#!/usr/bin/env python3
"""OCR speed and accuracy on a screen we draw and therefore know (testbed/ocr_truth.py): word
recall, precision and box IoU against the truth, and the time of a full 1920x1080 screen and of
a 400x200 region, wall clock and CPU seconds (all threads), as medians and as ratios to the
same run's baseline (the machine is shared: the ratio is the figure to compare).

  * before: Tesseract's own page layout over the whole image, twice (single block and sparse
    text, merged), with its inverted retries, on one thread: desktopd's reading before issue 29;
  * tesseract: desktopd.vision.tesseract as shipped (our line detection, each line once, a pool
    of one engine per core), first reads (no cache), repeat reads of the same pixels, and reads
    after one line of text changed (the act-loop case), cache warm from the previous screen;
  * tesseract 1 worker: the same on one thread (CPU cost without the pool's parallelism);
  * model: desktopd.vision.model_engine as shipped (Tesseract's line model in ONNX Runtime, all
    new lines batched over a pool of one thread per core), first, repeat and one-line-changed
    reads as above; and model 1 worker;
  * rapidocr: RapidOCR's PP-OCRv4 models in ONNX Runtime (benchmarks/ocr_rapid.py), when
    rapidocr-onnxruntime is installed in this interpreter (`pip install rapidocr-onnxruntime`).
Usage: .venv/bin/python benchmarks/bench_ocr.py [--runs 5] [--min-confidence 0.3] [--rapid]
       .venv/bin/python benchmarks/bench_ocr.py --screenshot SCREEN.png   (a real screen, no truth)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from desktopd.vision.line_cache import LineCache
from desktopd.vision.model_engine import ModelEngine
from desktopd.vision.tesseract import PSM_SINGLE_BLOCK, TesseractEngine
from desktopd.vision.text import Line, OcrEngine
from testbed.ocr_truth import FONT_DIR, Score, TrueWord, score, synthetic_screen

REGION = (0, 0, 400, 200)
SPARSE_TEXT = 11


def confident(lines: list[Line], minimum: float) -> list[Line]:
    return [Line(tuple(w for w in line.words if w.confidence >= minimum), line.box, line.confidence)
            for line in lines]


def merged(kept: list[Line], more: list[Line]) -> list[Line]:
    """``kept`` plus the lines of ``more`` that overlap none of them."""
    return kept + [line for line in more if not any(line.box.iou(k.box) > 0 for k in kept)]


class TwoPassPageLayout:
    """The reading before issue 29, rebuilt from the engine's single-image call."""

    name = "before: two page-layout passes"

    def __init__(self) -> None:
        self._engine = TesseractEngine(workers=1)
        self._engine.set_variable("tessedit_do_invert", "1")   # Tesseract's default, then on
        self.version = self._engine.version

    def read(self, image: Image.Image) -> list[Line]:
        gray = image.convert("L")
        lines = merged(self._engine.recognise(gray, PSM_SINGLE_BLOCK), self._engine.recognise(gray, SPARSE_TEXT))
        return sorted(lines, key=lambda line: (line.box.y, line.box.x))

    def close(self) -> None:
        self._engine.close()


@dataclass
class Timing:
    wall: float
    cpu: float
    lines: list[Line]


@dataclass
class Case:
    """One thing to time: ``prepare`` runs before each timed ``read``, outside the timing."""
    read: Callable[[], list[Line]]
    prepare: Callable[[], None] = lambda: None


def timed_in_turn(cases: dict[str, Case], runs: int) -> dict[str, Timing]:
    """Medians of every case, run in turns (one of each per round), so that the load of the
    shared host, which drifts over a minute, weighs on all of them alike."""
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    lines: dict[str, list[Line]] = {}
    for _ in range(runs):
        for name, case in cases.items():
            case.prepare()
            wall, cpu = time.perf_counter(), time.process_time()
            lines[name] = case.read()
            walls[name].append(time.perf_counter() - wall)
            cpus[name].append(time.process_time() - cpu)
    return {name: Timing(statistics.median(walls[name]), statistics.median(cpus[name]), lines[name])
            for name in cases}


def one_line_changed(screen: Image.Image, truth: list[TrueWord]) -> Image.Image:
    """The screen with its first line of words painted over by other words (an act loop's step)."""
    changed = screen.copy()
    first = [t for t in truth if abs(t.box.y - truth[0].box.y) < 4 and t.box.x < 480]
    draw = ImageDraw.Draw(changed)
    x0, y0 = first[0].box.x, min(t.box.y for t in first)
    x1 = max(t.box.x + t.box.width for t in first)
    y1 = max(t.box.y + t.box.height for t in first)
    fill = screen.getpixel((x0 - 4, y0 - 4))
    ink = screen.getpixel(next((x, y) for x in range(x0, x1) for y in range(y0, y1)
                               if screen.getpixel((x, y)) != fill))
    draw.rectangle((x0, y0, x1, y1), fill=fill)
    draw.text((x0, y0), "Changed line 12345", font=ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", 13), fill=ink)
    return changed


def report(label: str, full: Timing, part: Timing, base: tuple[Timing, Timing], scores: tuple[Score, Score] | None) -> None:
    print(f"{label}: full screen {full.wall * 1000:.0f} ms wall ({full.wall / base[0].wall:.2f}x), "
          f"{full.cpu * 1000:.0f} ms CPU ({full.cpu / base[0].cpu:.2f}x); "
          f"400x200 region {part.wall * 1000:.1f} ms wall ({part.wall / base[1].wall:.2f}x), "
          f"{part.cpu * 1000:.1f} ms CPU ({part.cpu / base[1].cpu:.2f}x)")
    if scores:
        whole, region = scores
        print(f"    screen: recall {whole.recall:.3f} precision {whole.precision:.3f} box IoU "
              f"{whole.mean_iou:.3f} ({whole.truth_words} true words, {whole.read_words} read); "
              f"region: recall {region.recall:.3f} precision {region.precision:.3f} IoU {region.mean_iou:.3f}")


def engine_cases(label: str, engine: OcrEngine, cache: LineCache, image: Image.Image,
                 changed: Image.Image) -> dict[str, Case]:
    """First read (empty cache), repeat read (the same pixels again) and a read after one line
    changed (the cache holds the image before the change, no more)."""
    def warm(what: Image.Image) -> Callable[[], None]:
        def read_it() -> None:
            cache.clear()
            engine.read(what)
        return read_it
    return {f"{label}, first read": Case(lambda: engine.read(image), cache.clear),
            f"{label}, repeat read": Case(lambda: engine.read(image), warm(image)),
            f"{label}, one line changed": Case(lambda: engine.read(changed), warm(image))}


def screenshot(image: Image.Image, runs: int) -> None:
    """A real screen's first and repeat reads against the reading before, in turns."""
    old = TwoPassPageLayout()
    cache, model_cache = LineCache(), LineCache()
    engine = TesseractEngine(cache=cache)
    model = ModelEngine(cache=model_cache)
    print(f"{image.width}x{image.height} screenshot, medians of {runs}, load average {os.getloadavg()[0]:.1f}")
    timings = timed_in_turn({old.name: Case(lambda: old.read(image)),
                             "tesseract, first read": Case(lambda: engine.read(image), cache.clear),
                             "tesseract, repeat read": Case(lambda: engine.read(image), lambda: engine.read(image)),
                             "model, first read": Case(lambda: model.read(image), model_cache.clear),
                             "model, repeat read": Case(lambda: model.read(image), lambda: model.read(image))},
                            runs)
    base = timings[old.name]
    for name, timing in timings.items():
        words = sum(len(line.words) for line in timing.lines)
        print(f"{name}: {timing.wall * 1000:.0f} ms wall ({timing.wall / base.wall:.2f}x), "
              f"{timing.cpu * 1000:.0f} ms CPU ({timing.cpu / base.cpu:.2f}x), {words} words")
    old.close()
    engine.close()
    model.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-confidence", type=float, default=0.3)
    parser.add_argument("--rapid", action="store_true", help="also RapidOCR (needs rapidocr-onnxruntime)")
    parser.add_argument("--screenshot", type=Path,
                        help="instead: time before and after on this screenshot (no truth: words counted)")
    args = parser.parse_args()
    if args.screenshot:
        screenshot(Image.open(args.screenshot).convert("RGB"), args.runs)
        return
    screen, truth = synthetic_screen()
    region = screen.crop((REGION[0], REGION[1], REGION[0] + REGION[2], REGION[1] + REGION[3]))
    region_truth = [t for t in truth if t.box.x + t.box.width <= REGION[2] and t.box.y + t.box.height <= REGION[3]]
    changed_screen = one_line_changed(screen, truth)
    changed_region = changed_screen.crop((REGION[0], REGION[1], REGION[0] + REGION[2], REGION[1] + REGION[3]))

    def scored(full: Timing, part: Timing) -> tuple[Score, Score]:
        return (score(confident(full.lines, args.min_confidence), truth),
                score(confident(part.lines, args.min_confidence), region_truth))

    old = TwoPassPageLayout()
    engines = {"tesseract": (LineCache(), None), "tesseract 1 worker": (LineCache(), 1),
               "model": (LineCache(), None), "model 1 worker": (LineCache(), 1)}
    made: dict[str, OcrEngine] = {
        label: (ModelEngine(workers=workers, cache=cache) if label.startswith("model")
                else TesseractEngine(workers=workers, cache=cache))
        for label, (cache, workers) in engines.items()}
    print(f"Tesseract {old.version}, medians of {args.runs}, load average before "
          f"{os.getloadavg()[0]:.1f}")
    results = []
    for image, changed in ((screen, changed_screen), (region, changed_region)):
        cases = {old.name: Case(lambda image=image: old.read(image))}
        for label, engine in made.items():
            cases.update(engine_cases(label, engine, engines[label][0], image, changed))
        results.append(timed_in_turn(cases, args.runs))
    full, part = results
    base = (full[old.name], part[old.name])
    for name in full:
        scores = None if name.endswith("changed") else scored(full[name], part[name])
        report(name, full[name], part[name], base, scores)
    print(f"load average after {os.getloadavg()[0]:.1f}")
    old.close()
    for engine in made.values():
        engine.close()

    if args.rapid:
        from ocr_rapid import RapidEngine
        rapid: OcrEngine = RapidEngine()
        timings = (timed_in_turn({"rapid": Case(lambda: rapid.read(screen))}, args.runs)["rapid"],
                   timed_in_turn({"rapid": Case(lambda: rapid.read(region))}, args.runs)["rapid"])
        report(f"rapidocr {rapid.version}", *timings, base, scored(*timings))


if __name__ == "__main__":
    main()
