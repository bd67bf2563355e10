"""desktopd's OCR engine: our line detection (detect.py), Tesseract's English line model run over
all the screen's new lines at once by ONNX Runtime (line_net.py), best-path decoding (ctc.py)
and word boxes from the ink (word_boxes.py). Ink taller than a line that no cut divides (a
table, a picture) goes to Tesseract's own page layout (tesseract.py). Lines whose pixels were
read before are answered from the cache."""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import onnxruntime
from PIL import Image

from . import ctc, tess_model, word_boxes
from .tess_model import STEP_PIXELS
from .detect import Spot, line_image, text_lines
from .line_cache import LineCache, line_key
from .line_net import LineNet, batches, prepare, scaled_width
from .tesseract import PSM_SINGLE_BLOCK, TesseractEngine, default_workers
from .text import Line, Word

# The line image the model reads: the ink and this many pixels of background around it (what
# Tesseract's own line reading gives its model).
ROOM = 4
# A word read below RETRY_BELOW is read again alone: cut with WORD_ROOM around its own ink (a
# word smaller than its line, a code span, is then scaled to the model's height by itself) and
# enlarged UPSCALE times (bicubic: smoother edges for small glyphs); the new reading replaces it
# when its least sure word is surer. It reads a 13 px path's leading "/" (first read as "J"), a
# small monospace ":8080" (first read as ":sese") and "start.html" (first read as "start.htm!").
RETRY_BELOW = 0.7
WORD_ROOM = 2
UPSCALE = 2
# A line whose ink touches the image's top or bottom edge was cut by it (a region's edge, the
# screen's bottom row mid-scroll): its glyphs lack their lower or upper part, which the model
# reads as confident nonsense ("Canurinht" for a cut "Copyright"). Its words keep their text but
# their confidence goes no higher than this, below the default min_confidence.
CUT_LINE_CONFIDENCE = 0.25
# Cache keys of this engine's lines (Tesseract's keys carry its page segmentation mode).
CACHE_MODE = 1000


@dataclass(frozen=True)
class _Job:
    spot: Spot
    image: Image.Image              # what is read: the ink with ROOM around it, dark on light
                                    # (a block: the whole margin image detect.py cut, for Tesseract)
    origin: tuple[int, int]         # where that image's top-left pixel lies in the screen
    key: bytes

    @property
    def fill(self) -> int:
        """The line's background grey as the model sees it (light text is inverted)."""
        return 255 - self.spot.background if self.spot.light_on_dark else self.spot.background


def _cut_by_edge(spot: Spot, height: int) -> bool:
    return spot.box.y <= 1 or spot.box.y + spot.box.height >= height - 1


def _capped(line: Line, confidence: float) -> Line:
    words = tuple(replace(w, confidence=min(w.confidence, confidence)) for w in line.words)
    return replace(line, words=words, confidence=min(line.confidence, confidence))


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
        margin, (mx, my) = line_image(gray, spot)
        if spot.block:
            return _Job(spot, margin, (mx, my), line_key(margin, PSM_SINGLE_BLOCK))
        x0, y0 = spot.box.x - mx - ROOM, spot.box.y - my - ROOM
        image = margin.crop((x0, y0, x0 + spot.box.width + 2 * ROOM, y0 + spot.box.height + 2 * ROOM))
        return _Job(spot, image, (mx + x0, my + y0), line_key(image, CACHE_MODE))

    def _recognise(self, images: list[Image.Image], backgrounds: list[int]) -> list[tuple[Word, ...]]:
        """Each image (dark on light, this background grey) through the model: its words, with
        boxes in the image's pixels."""
        prepared = [prepare(image, self._model.height) for image in images]
        out = []
        for image, background, line, probabilities in zip(images, backgrounds, prepared, self._net.run(prepared)):
            found = ctc.words(probabilities, self._model.null_code, self._model.code_text)
            boxes = word_boxes.boxes(found, line.scale, np.asarray(image), background)
            out.append(tuple(Word(w.text, box, w.confidence) for w, box in zip(found, boxes)))
        return out

    def _read(self, jobs: list[_Job]) -> list[Line | None]:
        """Each line cut with ROOM around its ink (None: no text read)."""
        read = self._recognise([job.image for job in jobs], [job.fill for job in jobs])
        return [Line.of_words(words) if words else None for words in read]

    def _firmer_words(self, jobs: list[_Job], lines: list[Line | None]) -> list[Line | None]:
        """Each weak word read again alone, cut tight with WORD_ROOM around its ink: a word
        smaller than its line (a code span, a superscript) is then scaled to the model's height
        by itself. The new reading replaces the word when its least sure word is surer."""
        weak = [(i, k, word) for i, line in enumerate(lines) if line is not None
                for k, word in enumerate(line.words) if word.confidence < RETRY_BELOW]
        if not weak:
            return lines
        crops, origins = [], []
        for i, _, word in weak:
            image, box = jobs[i].image, word.box
            x0, y0 = max(0, box.x - WORD_ROOM), max(0, box.y - WORD_ROOM)
            crop = image.crop((x0, y0, min(image.width, box.x + box.width + WORD_ROOM),
                               min(image.height, box.y + box.height + WORD_ROOM)))
            crops.append(crop.resize((crop.width * UPSCALE, crop.height * UPSCALE), Image.Resampling.BICUBIC))
            origins.append((x0, y0))
        again = self._recognise(crops, [jobs[i].fill for i, _, _ in weak])
        replaced: dict[tuple[int, int], tuple[Word, ...]] = {}
        for (i, k, word), (x0, y0), words in zip(weak, origins, again):
            if words and min(w.confidence for w in words) > word.confidence:
                replaced[(i, k)] = tuple(w.shrunk(UPSCALE).moved(x0, y0) for w in words)
        out: list[Line | None] = []
        for i, line in enumerate(lines):
            if line is None or not any((i, k) in replaced for k in range(len(line.words))):
                out.append(line)
                continue
            words = tuple(w for k, old in enumerate(line.words) for w in replaced.get((i, k), (old,)))
            out.append(Line.of_words(words, line.box))
        return out

    def _lines(self, jobs: list[_Job]) -> list[list[Line]]:
        """One batch of lines, their weak words read again alone."""
        read = self._firmer_words(jobs, self._read(jobs))
        return [[line] if line is not None else [] for line in read]

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
        steps = [scaled_width(jobs[i].image.size, self._model.height) // STEP_PIXELS for i in lines]
        groups = [[lines[k] for k in group] for group in batches(steps)]
        runs = [self._pool.submit(self._lines, [jobs[i] for i in group]) for group in groups]
        block_runs = [(i, self._blocks.submit(jobs[i].image, PSM_SINGLE_BLOCK)) for i in blocks]
        for group, run in zip(groups, runs):
            for i, read in zip(group, run.result()):
                known[i] = read
        for i, block_run in block_runs:
            known[i] = block_run.result()
        for i in todo:
            self._cache.put(jobs[i].key, known[i] or [])
        known = [read if read is not None else known[first_of[job.key]] for job, read in zip(jobs, known)]
        # Boxes end at their spot's ink (Spot.box): the recogniser's can reach into the room cut
        # around it, whose pixels differ from a background measured inside (white beside a noise
        # patch's mean grey); whatever a block's Tesseract layout finds stays inside the block.
        placed = [(_capped(line, CUT_LINE_CONFIDENCE) if _cut_by_edge(job.spot, gray.height) else line)
                  .moved(*job.origin).clipped(job.spot.box)
                  for job, read in zip(jobs, known) for line in read or ()]
        out = [line for line in placed if line is not None]
        return sorted(out, key=lambda line: (line.box.y, line.box.x))
