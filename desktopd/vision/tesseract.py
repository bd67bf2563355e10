"""Tesseract (Debian's libtesseract5 and its English model) through its C API over ctypes: the
model is loaded once per thread and kept, instead of a process and a model load per read."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading

from PIL import Image

from .text import Box, Line, Word

LANGUAGE = b"eng"
# Tesseract's TSV levels: 4 is a text line, 5 a word.
LINE_LEVEL, WORD_LEVEL = 4, 5
# Two page segmentations, merged: PSM_SINGLE_BLOCK (the C API's default: holds up on screens
# of mixed light and dark areas, where PSM_AUTO and PSM_SPARSE_TEXT lose half the words) and
# PSM_SPARSE_TEXT (the labels and button captions beside drawn boxes, which the block modes
# drop as pictures). Neither alone reads both kinds (docs/vision.md, scripts/bench_ocr.py).
PAGE_SEGMENTATIONS = (6, 11)
# Screens are 96 dpi; without it Tesseract guesses from the image and warns on stderr.
SCREEN_DPI = 96


class TesseractUnavailable(RuntimeError):
    """libtesseract or its English model is not installed."""


def _library() -> ctypes.CDLL:
    # One OpenMP thread: the CPU is shared with X, Chromium and input, and Tesseract's spinning
    # worker threads cost far more than they gain on a busy 2-core host (docs/vision.md). Read
    # by libgomp when it loads with libtesseract, so set before that.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    name = ctypes.util.find_library("tesseract")
    if name is None:
        raise TesseractUnavailable("libtesseract is not installed (Debian: tesseract-ocr)")
    lib = ctypes.CDLL(name)
    lib.TessBaseAPICreate.restype = ctypes.c_void_p
    lib.TessBaseAPIInit3.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.TessBaseAPISetImage.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                        ctypes.c_int, ctypes.c_int]
    lib.TessBaseAPISetPageSegMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.TessBaseAPISetSourceResolution.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.TessBaseAPIRecognize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.TessBaseAPIGetTsvText.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.TessBaseAPIGetTsvText.restype = ctypes.c_void_p   # freed with TessDeleteText
    lib.TessDeleteText.argtypes = [ctypes.c_void_p]
    lib.TessVersion.restype = ctypes.c_char_p
    lib.TessBaseAPIEnd.argtypes = [ctypes.c_void_p]
    lib.TessBaseAPIDelete.argtypes = [ctypes.c_void_p]
    return lib


def parse_tsv(tsv: str) -> list[Line]:
    """Tesseract's TSV (level page block par line word left top width height conf text) -> lines."""
    lines: dict[tuple[str, str, str, str], list[Word]] = {}
    line_boxes: dict[tuple[str, str, str, str], Box] = {}
    for row in tsv.splitlines():
        cols = row.split("\t")
        if len(cols) < 12 or not cols[0].isdigit():
            continue
        level = int(cols[0])
        key = (cols[1], cols[2], cols[3], cols[4])
        box = Box(int(cols[6]), int(cols[7]), int(cols[8]), int(cols[9]))
        if level == LINE_LEVEL:
            line_boxes[key] = box
        elif level == WORD_LEVEL and cols[11].strip():
            lines.setdefault(key, []).append(Word(cols[11].strip(), box, max(0.0, float(cols[10])) / 100))
    out = []
    for key, words in lines.items():
        confidence = sum(w.confidence for w in words) / len(words)
        out.append(Line(tuple(words), line_boxes.get(key) or Box.around([w.box for w in words]), confidence))
    return sorted(out, key=lambda line: (line.box.y, line.box.x))


class TesseractEngine:
    name = "tesseract"

    def __init__(self) -> None:
        self._lib = _library()
        self.version = self._lib.TessVersion().decode()
        self._local = threading.local()
        self._api()   # fails here, at start, when the model is missing

    def _api(self) -> int:
        api = getattr(self._local, "api", None)
        if api is None:
            api = self._lib.TessBaseAPICreate()
            if self._lib.TessBaseAPIInit3(api, None, LANGUAGE) != 0:
                raise TesseractUnavailable("Tesseract's English model is not installed "
                                           "(Debian: tesseract-ocr-eng)")
            self._local.api = api
        return api

    def close(self) -> None:
        api = getattr(self._local, "api", None)
        if api is not None:
            self._lib.TessBaseAPIEnd(api)
            self._lib.TessBaseAPIDelete(api)
            self._local.api = None

    def _recognise(self, api: int, mode: int) -> list[Line]:
        self._lib.TessBaseAPISetPageSegMode(api, mode)
        if self._lib.TessBaseAPIRecognize(api, None) != 0:
            raise RuntimeError("Tesseract failed to recognise the image")
        pointer = self._lib.TessBaseAPIGetTsvText(api, 0)
        try:
            tsv = ctypes.string_at(pointer).decode("utf-8", "replace")
        finally:
            self._lib.TessDeleteText(pointer)
        return parse_tsv(tsv)

    def read(self, image: Image.Image) -> list[Line]:
        gray = image.convert("L")
        api = self._api()
        self._lib.TessBaseAPISetImage(api, gray.tobytes(), gray.width, gray.height, 1, gray.width)
        self._lib.TessBaseAPISetSourceResolution(api, SCREEN_DPI)
        lines: list[Line] = []
        for mode in PAGE_SEGMENTATIONS:
            lines = merged(lines, self._recognise(api, mode))
        return sorted(lines, key=lambda line: (line.box.y, line.box.x))


def merged(kept: list[Line], more: list[Line]) -> list[Line]:
    """``kept`` plus the lines of ``more`` that overlap none of them (the same text read twice
    stays once, as the first reading has it)."""
    return kept + [line for line in more if not any(line.box.iou(k.box) > 0 for k in kept)]
