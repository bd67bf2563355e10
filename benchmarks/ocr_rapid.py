"""The RapidOCR candidate benchmarks/bench_ocr.py measures against Tesseract (not shipped, see
docs/vision.md): PaddleOCR's PP-OCRv4 models inside the rapidocr-onnxruntime wheel, run by ONNX
Runtime on the CPU."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from importlib import metadata

import numpy
from PIL import Image

from desktopd.vision.text import Box, Line, Word

Quad = Sequence[Sequence[float]]


def quad_box(points: Quad) -> Box:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0, y0 = int(min(xs)), int(min(ys))
    return Box(x0, y0, max(1, round(max(xs)) - x0), max(1, round(max(ys)) - y0))


# The PP-OCR recogniser often drops the spaces of Latin text ("Helloworld"): a gap between two
# characters wider than this share of the line's height is a word break.
WORD_GAP = 0.3


def split_words(line_box: Box, chars: Sequence[str], quads: Sequence[Quad],
                scores: Sequence[float]) -> tuple[Word, ...]:
    """The recogniser's characters with their boxes -> words, broken at spaces and wide gaps."""
    words: list[Word] = []
    run: list[tuple[str, Box, float]] = []

    def flush() -> None:
        if run:
            text = "".join(c for c, _, _ in run)
            words.append(Word(text, Box.around([b for _, b, _ in run]), min(s for _, _, s in run)))
            run.clear()
    for char, quad, score in zip(chars, quads, scores):
        char = unicodedata.normalize("NFKC", char)
        box = quad_box(quad)
        if not char.strip():
            flush()
            continue
        if run and box.x - (run[-1][1].x + run[-1][1].width) > WORD_GAP * line_box.height:
            flush()
        run.append((char, box, float(score)))
    flush()
    return tuple(words)


class RapidEngine:
    name = "rapidocr"

    def __init__(self) -> None:
        from rapidocr_onnxruntime import (
            RapidOCR,  # absent from the desktop image: imported here
        )
        self.version = metadata.version("rapidocr-onnxruntime")
        self._ocr = RapidOCR()

    def read(self, image: Image.Image) -> list[Line]:
        rgb = numpy.asarray(image.convert("RGB"))[:, :, ::-1]   # the engine wants OpenCV's BGR
        result, _ = self._ocr(numpy.ascontiguousarray(rgb), return_word_box=True)
        lines = []
        for item in result or []:
            quad, score = item[0], float(item[2])
            line_box = quad_box(quad)
            quads, chars, scores = item[3], item[4], item[5]
            words = split_words(line_box, chars, quads, scores)
            if words:
                lines.append(Line(words, line_box, score))
        return sorted(lines, key=lambda line: (line.box.y, line.box.x))

    def close(self) -> None:
        """Nothing to free by hand: ONNX Runtime's sessions go with the object."""
