"""The OCR engine desktopd reads the screen with, created on first use on its own thread (one
read at a time: the engine spreads one read's lines over the cores itself, and the CPU is shared
with the desktop), and the reason it cannot be when the engine is not installed (the desktop
image ships none).

The engine is Tesseract's line model run by ONNX Runtime (model_engine.py); where numpy or
ONNX Runtime is missing, or the model cannot be read, Tesseract reads alone (tesseract.py) and
every answer says why in ``engine.fallback``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from httpapi.errors import ApiError

from .text import Line, OcrEngine


@dataclass(frozen=True)
class Reading:
    lines: list[Line]
    engine: OcrEngine
    read_ms: float
    fallback: str | None   # why the engine is not the preferred one


@dataclass(frozen=True)
class EngineChoice:
    engine: OcrEngine
    fallback: str | None = None


def default_engine(traineddata: Path | None = None) -> EngineChoice:
    try:
        from .model_engine import ModelEngine
        from .tess_model import DEFAULT_TRAINEDDATA
        return EngineChoice(ModelEngine(traineddata or DEFAULT_TRAINEDDATA))
    except (ImportError, OSError, ValueError, RuntimeError) as exc:   # ModelFormatError is a ValueError
        reason = f"Tesseract's model through ONNX Runtime could not start ({type(exc).__name__}: {exc})"
    from .tesseract import TesseractEngine
    return EngineChoice(TesseractEngine(), f"{reason}; Tesseract reads alone (slower)")


class TextReader:
    def __init__(self, factory: Callable[[], EngineChoice] = default_engine) -> None:
        self._factory = factory
        self._engine: OcrEngine | None = None
        self._fallback: str | None = None
        self._problem: str | None = None
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktopd-ocr")

    def _ensure(self) -> OcrEngine:
        """On the OCR thread. A missing engine stays missing (installing it restarts the image)."""
        if self._engine is None and self._problem is None:
            try:
                choice = self._factory()
                self._engine, self._fallback = choice.engine, choice.fallback
            except (OSError, RuntimeError) as exc:
                self._problem = str(exc)
        if self._engine is None:
            raise ApiError(503, "ocr_unavailable",
                           f"no OCR engine on this desktop: {self._problem}. Vision text needs "
                           "Tesseract (Debian tesseract-ocr, tesseract-ocr-eng), which the "
                           "Chromium image ships and the desktop image does not")
        return self._engine

    def _read(self, image: Image.Image) -> Reading:
        engine = self._ensure()
        started = time.perf_counter()
        lines = engine.read(image)
        return Reading(lines, engine, (time.perf_counter() - started) * 1000, self._fallback)

    async def read(self, image: Image.Image) -> Reading:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._read, image)

    def close(self) -> None:
        """Frees the engine on its own thread once a read in progress is over."""
        if self._engine is not None:
            self._executor.submit(self._engine.close)
        self._executor.shutdown(wait=False)
