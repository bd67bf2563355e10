"""desktopd's OCR engine: our line detection (detect.py), Tesseract's English line model run over
all the screen's new lines at once by ONNX Runtime (line_net.py), best-path decoding (ctc.py)
and word boxes from the ink (word_boxes.py). Ink taller than a line that no cut divides (a
table, a picture) goes to Tesseract's own page layout (tesseract.py). Lines whose pixels were
read before are answered from the cache."""

from __future__ import annotations

import concurrent.futures
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnxruntime
from PIL import Image

from . import ctc, tess_model, word_boxes
from .detect import Spot, line_image, text_lines
from .line_cache import LineCache, line_key
from .line_net import LineNet, batches, prepare, scaled_width
from .tesseract import PSM_SINGLE_BLOCK, TesseractEngine
from .text import Box, Line, Word

# The line image the model reads: the ink and this many pixels of background around it (what
# Tesseract's own line reading gives its model). A line read with a word below RETRY_BELOW is
# read again with RETRY_ROOM around it and the surer reading kept: the model sees the line at a
# different scale, which resolves small glyphs it was unsure of (a 13 px path's leading "/").
ROOM = 4
RETRY_ROOM = 2
RETRY_BELOW = 0.7
# A line whose ink touches the image's top or bottom edge was cut by it (a region's edge, the
# screen's bottom row mid-scroll): its glyphs lack their lower or upper part, which the model
# reads as confident nonsense ("Canurinht" for a cut "Copyright"). Its words keep their text but
# their confidence goes no higher than this, below the default min_confidence.
CUT_LINE_CONFIDENCE = 0.25
# Cache keys of this engine's lines (Tesseract's keys carry its page segmentation mode).
CACHE_MODE = 1000
MAX_WORKERS = 4


@dataclass(frozen=True)
class _Job:
    spot: Spot
    margin: Image.Image             # the line on a margin of its fill, dark on light (detect.py)
    margin_at: tuple[int, int]      # where the margin image's top-left pixel lies in the screen
    key: bytes

    def size(self, room: int) -> tuple[int, int]:
        return self.spot.box.width + 2 * room, self.spot.box.height + 2 * room

    def crop(self, room: int) -> tuple[Image.Image, tuple[int, int]]:
        """The ink with ``room`` pixels around it, and where that lies in the screen."""
        x0, y0 = self.spot.box.x - self.margin_at[0] - room, self.spot.box.y - self.margin_at[1] - room
        width, height = self.size(room)
        image = self.margin.crop((x0, y0, x0 + width, y0 + height))
        return image, (self.margin_at[0] + x0, self.margin_at[1] + y0)

    @property
    def origin(self) -> tuple[int, int]:
        """Where the lines read for this job are placed from (cached lines are relative)."""
        return self.margin_at if self.spot.block else self.crop(ROOM)[1]


def _cut_by_edge(spot: Spot, height: int) -> bool:
    return spot.box.y <= 1 or spot.box.y + spot.box.height >= height - 1


def _capped(line: Line, confidence: float) -> Line:
    words = tuple(replace(w, confidence=min(w.confidence, confidence)) for w in line.words)
    return replace(line, words=words, confidence=min(line.confidence, confidence))


def _least_sure(line: Line) -> float:
    return min(word.confidence for word in line.words)


def default_workers() -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


class ModelEngine:
    name = "tesseract-model-onnx"

    def __init__(self, traineddata: Path = tess_model.DEFAULT_TRAINEDDATA, workers: int | None = None,
                 cache: LineCache | None = None) -> None:
        self._model = tess_model.load(traineddata)
        self._net = LineNet(self._model)
        self.version = f"onnxruntime {onnxruntime.__version__}, {self._model.spec}"
        self._cache = cache if cache is not None else LineCache()
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers or default_workers(), thread_name_prefix="desktopd-ocr-model")
        # Made now, not on the first block: an engine that cannot read blocks must not start.
        self._blocks = TesseractEngine(workers=1, cache=self._cache)
        self.lines_recognised = 0   # line images the model read (not answered from the cache)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._blocks.close()

    def _job(self, gray: Image.Image, spot: Spot) -> _Job:
        margin, at = line_image(gray, spot)
        job = _Job(spot, margin, at, b"")
        image = margin if spot.block else job.crop(ROOM)[0]
        return replace(job, key=line_key(image, PSM_SINGLE_BLOCK if spot.block else CACHE_MODE))

    def _read(self, jobs: list[_Job], room: int) -> list[Line | None]:
        """Each line cut with ``room`` through the model, decoded into words with their ink
        boxes, placed relative to the line's ROOM crop (what the cache keeps); None: no text."""
        images = [job.crop(room)[0] for job in jobs]
        prepared = [prepare(image, self._model.height) for image in images]
        out: list[Line | None] = []
        for job, image, line, probabilities in zip(jobs, images, prepared, self._net.run(prepared)):
            found = ctc.words(probabilities, self._model.null_code, self._model.code_text)
            if not found:
                out.append(None)
                continue
            background = 255 - job.spot.background if job.spot.light_on_dark else job.spot.background
            boxes = word_boxes.boxes(found, line.scale, np.asarray(image), background)
            words = tuple(Word(w.text, box, w.confidence) for w, box in zip(found, boxes))
            read = Line(words, Box.around(list(boxes)), sum(w.confidence for w in words) / len(words))
            out.append(read.moved(ROOM - room, ROOM - room))
        return out

    def _lines(self, jobs: list[_Job]) -> list[list[Line]]:
        """One batch of lines, the weak ones read a second way and the surer reading kept."""
        first = self._read(jobs, ROOM)
        weak = [i for i, line in enumerate(first) if line is not None and _least_sure(line) < RETRY_BELOW]
        if weak:
            for i, again in zip(weak, self._read([jobs[i] for i in weak], RETRY_ROOM)):
                held = first[i]
                if again is not None and held is not None and _least_sure(again) > _least_sure(held):
                    first[i] = again
        return [[line] if line is not None else [] for line in first]

    def read(self, image: Image.Image) -> list[Line]:
        gray = image.convert("L")
        jobs = [self._job(gray, spot) for spot in text_lines(gray)]
        known = [self._cache.get(job.key) for job in jobs]
        # Each new line image once, however often it appears (a column of "Edit" buttons).
        first_of = {job.key: i for i, job in reversed(list(enumerate(jobs))) if known[i] is None}
        todo = sorted(first_of.values())
        blocks = [i for i in todo if jobs[i].spot.block]
        lines = [i for i in todo if not jobs[i].spot.block]
        self.lines_recognised += len(lines)
        steps = [scaled_width(jobs[i].size(ROOM), self._model.height) // 3 for i in lines]
        groups = [[lines[k] for k in group] for group in batches(steps)]
        runs = [self._pool.submit(self._lines, [jobs[i] for i in group]) for group in groups]
        block_runs = [(i, self._blocks.submit(jobs[i].margin, PSM_SINGLE_BLOCK)) for i in blocks]
        for group, run in zip(groups, runs):
            for i, read in zip(group, run.result()):
                known[i] = read
        for i, block_run in block_runs:
            known[i] = block_run.result()
        for i in todo:
            self._cache.put(jobs[i].key, known[i] or [])
        known = [read if read is not None else known[first_of[job.key]] for job, read in zip(jobs, known)]
        out = [(_capped(line, CUT_LINE_CONFIDENCE) if _cut_by_edge(job.spot, gray.height) else line).moved(*job.origin)
               for job, read in zip(jobs, known) for line in read or ()]
        return sorted(out, key=lambda line: (line.box.y, line.box.x))
