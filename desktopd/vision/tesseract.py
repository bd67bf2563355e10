"""Tesseract (Debian's libtesseract5 and its English model) through its C API over ctypes: the
model is loaded once per worker thread and kept, instead of a process and a model load per read.

A read finds the text lines itself (detect.py), hands each line to Tesseract once as a single
line, dark on light, and reads the lines on every core at once (ctypes lets go of the GIL while
Tesseract works). Lines whose pixels were read before are answered from a cache (line_cache.py)."""

from __future__ import annotations

import concurrent.futures
import ctypes
import ctypes.util
import os
import threading

from PIL import Image

from .detect import Spot, line_image, text_lines
from .line_cache import LineCache, line_key
from .text import Box, Line, Word

LANGUAGE = b"eng"
# Tesseract's TSV levels: 4 is a text line, 5 a word.
LINE_LEVEL, WORD_LEVEL = 4, 5
# Page segmentation modes: one line (what detect.py finds), and one uniform block for ink taller
# than a line that no cut divides (Tesseract's own layout then).
PSM_SINGLE_BLOCK, PSM_SINGLE_LINE = 6, 7
# Screens are 96 dpi; without it Tesseract guesses from the image and warns on stderr.
SCREEN_DPI = 96
# Lines arrive dark on light (detect.py inverts light text): Tesseract's own retry of a weak
# line inverted would only cost time.
SETTINGS = {b"tessedit_do_invert": b"0"}
MAX_WORKERS = 4
# A word read below this confidence is read again alone at UPSCALE times its size, with
# RETRY_ROOM pixels around it (small screen text loses detail in Tesseract's binarisation: a long
# path or URL then comes out with one wrong letter and no confidence), and the surer reading is
# kept: the weak words pay for it, not every line.
RETRY_BELOW = 0.5
UPSCALE = 2
RETRY_ROOM = 4


class TesseractUnavailable(RuntimeError):
    """libtesseract or its English model is not installed."""


def _openmp() -> ctypes.CDLL | None:
    """libgomp, which libtesseract runs its parallel regions on (None: built without OpenMP).

    One OpenMP thread per Tesseract: the parallelism is ours, a line per worker thread, and
    Tesseract's spinning OpenMP workers cost far more than they gain on a busy 2-core host
    (docs/vision.md). OMP_THREAD_LIMIT only counts when set before libgomp loads, and Debian's
    Pillow loads it first (through libimagequant), so each reading thread also sets its own
    max-active-levels to 0 (a per-thread setting since OpenMP 5): no parallel region goes active."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    name = ctypes.util.find_library("gomp")
    if name is None:
        return None
    gomp = ctypes.CDLL(name)
    gomp.omp_set_max_active_levels.argtypes = [ctypes.c_int]
    return gomp


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("tesseract")
    if name is None:
        raise TesseractUnavailable("libtesseract is not installed (Debian: tesseract-ocr)")
    lib = ctypes.CDLL(name)
    lib.TessBaseAPICreate.restype = ctypes.c_void_p
    lib.TessBaseAPIInit3.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.TessBaseAPISetVariable.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
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
    out = [Line.of_words(tuple(words), line_boxes.get(key)) for key, words in lines.items()]
    return sorted(out, key=lambda line: (line.box.y, line.box.x))


def default_workers() -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


class TesseractEngine:
    name = "tesseract"

    def __init__(self, workers: int | None = None, cache: LineCache | None = None) -> None:
        self._openmp = _openmp()
        self._lib = _library()
        self.version = self._lib.TessVersion().decode()
        self._local = threading.local()
        self._apis: list[int] = []
        self._apis_lock = threading.Lock()
        self._cache = cache if cache is not None else LineCache()
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers or default_workers(), thread_name_prefix="desktopd-tesseract")
        try:
            self._pool.submit(self._api).result()   # fails here, at start, when the model is missing
        except TesseractUnavailable:
            self._pool.shutdown()
            raise

    def _api(self) -> int:
        """This thread's Tesseract, made on first use."""
        api = getattr(self._local, "api", None)
        if api is None:
            if self._openmp is not None:
                self._openmp.omp_set_max_active_levels(0)
            api = self._lib.TessBaseAPICreate()
            if self._lib.TessBaseAPIInit3(api, None, LANGUAGE) != 0:
                self._lib.TessBaseAPIDelete(api)
                raise TesseractUnavailable("Tesseract's English model is not installed "
                                           "(Debian: tesseract-ocr-eng)")
            for name, value in SETTINGS.items():
                self._lib.TessBaseAPISetVariable(api, name, value)
            self._local.api = api
            with self._apis_lock:
                self._apis.append(api)
        return api

    def close(self) -> None:
        """Frees every worker's model once the reads in progress are over."""
        self._pool.shutdown(wait=True)
        with self._apis_lock:
            apis, self._apis = self._apis, []
        for api in apis:
            self._lib.TessBaseAPIEnd(api)
            self._lib.TessBaseAPIDelete(api)

    def set_variable(self, name: str, value: str) -> None:
        """A Tesseract setting for the model of the calling thread (recognise's, not the pool's)."""
        self._lib.TessBaseAPISetVariable(self._api(), name.encode(), value.encode())

    def recognise(self, gray: Image.Image, mode: int) -> list[Line]:
        """One greyscale image through Tesseract with page segmentation ``mode``, on this
        thread's model; boxes in the image's pixels."""
        api = self._api()
        self._lib.TessBaseAPISetImage(api, gray.tobytes(), gray.width, gray.height, 1, gray.width)
        self._lib.TessBaseAPISetSourceResolution(api, SCREEN_DPI)
        self._lib.TessBaseAPISetPageSegMode(api, mode)
        if self._lib.TessBaseAPIRecognize(api, None) != 0:
            raise RuntimeError("Tesseract failed to recognise the image")
        pointer = self._lib.TessBaseAPIGetTsvText(api, 0)
        try:
            tsv = ctypes.string_at(pointer).decode("utf-8", "replace")
        finally:
            self._lib.TessDeleteText(pointer)
        return parse_tsv(tsv)

    def submit(self, gray: Image.Image, mode: int) -> concurrent.futures.Future[list[Line]]:
        """``recognise`` on this engine's own workers (their models, each loaded once)."""
        return self._pool.submit(self.recognise, gray, mode)

    def _line(self, image: Image.Image, mode: int) -> list[Line]:
        """One line image read; its weak words read again, larger, each on its own."""
        return [self._firmer(image, line) for line in self.recognise(image, mode)]

    def _firmer(self, image: Image.Image, line: Line) -> Line:
        words: list[Word] = []
        for word in line.words:
            words.extend(self._reread(image, word) if word.confidence < RETRY_BELOW else (word,))
        if tuple(words) == line.words:
            return line
        return Line.of_words(tuple(words), line.box)

    def _reread(self, image: Image.Image, word: Word) -> tuple[Word, ...]:
        """The word cut out with a little room, read at UPSCALE times its size; kept when the
        words read there are surer on average than the word was."""
        x0, y0 = max(0, word.box.x - RETRY_ROOM), max(0, word.box.y - RETRY_ROOM)
        x1 = min(image.width, word.box.x + word.box.width + RETRY_ROOM)
        y1 = min(image.height, word.box.y + word.box.height + RETRY_ROOM)
        larger = image.crop((x0, y0, x1, y1)).resize(((x1 - x0) * UPSCALE, (y1 - y0) * UPSCALE),
                                                     Image.Resampling.BICUBIC)
        again = [w.shrunk(UPSCALE).moved(x0, y0) for line in self.recognise(larger, PSM_SINGLE_LINE)
                 for w in line.words]
        if again and sum(w.confidence for w in again) / len(again) > word.confidence:
            return tuple(again)
        return (word,)

    def _spot(self, gray: Image.Image, spot: Spot) -> tuple[Image.Image, tuple[int, int], int]:
        image, origin = line_image(gray, spot)
        return image, origin, PSM_SINGLE_BLOCK if spot.block else PSM_SINGLE_LINE

    def read(self, image: Image.Image) -> list[Line]:
        gray = image.convert("L")
        jobs = [self._spot(gray, spot) for spot in text_lines(gray)]
        keys = [line_key(job_image, mode) for job_image, _, mode in jobs]
        known = [self._cache.get(key) for key in keys]
        todo = [i for i, lines in enumerate(known) if lines is None]
        read = self._pool.map(lambda i: self._line(jobs[i][0], jobs[i][2]), todo)
        for i, lines in zip(todo, read):
            self._cache.put(keys[i], lines)
            known[i] = lines
        out = [line.moved(*origin) for (_, origin, _), lines in zip(jobs, known) for line in lines or ()]
        return sorted(out, key=lambda line: (line.box.y, line.box.x))
