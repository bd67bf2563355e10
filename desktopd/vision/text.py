"""What an OCR engine reads: words and lines with boxes in the pixels of the image it was given,
and the one place that moves them into screen pixels (the offset of the captured region)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, TypedDict

from PIL import Image


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int

    @property
    def center(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y + self.height // 2

    def moved(self, dx: int, dy: int) -> Box:
        return replace(self, x=self.x + dx, y=self.y + dy)

    def shrunk(self, factor: int) -> Box:
        """The box in an image ``factor`` times smaller (edges rounded outwards)."""
        x1 = -(-(self.x + self.width) // factor)
        y1 = -(-(self.y + self.height) // factor)
        return Box(self.x // factor, self.y // factor, x1 - self.x // factor, y1 - self.y // factor)

    def iou(self, other: Box) -> float:
        """Intersection over union of the two rectangles (0 when they do not touch)."""
        w = min(self.x + self.width, other.x + other.width) - max(self.x, other.x)
        h = min(self.y + self.height, other.y + other.height) - max(self.y, other.y)
        if w <= 0 or h <= 0:
            return 0.0
        inter = w * h
        return inter / (self.width * self.height + other.width * other.height - inter)

    def clipped(self, bounds: Box) -> Box | None:
        """The part of this box inside ``bounds`` (None when nothing is)."""
        x0, y0 = max(self.x, bounds.x), max(self.y, bounds.y)
        x1 = min(self.x + self.width, bounds.x + bounds.width)
        y1 = min(self.y + self.height, bounds.y + bounds.height)
        return Box(x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else None

    @staticmethod
    def around(boxes: list[Box]) -> Box:
        x0 = min(b.x for b in boxes)
        y0 = min(b.y for b in boxes)
        x1 = max(b.x + b.width for b in boxes)
        y1 = max(b.y + b.height for b in boxes)
        return Box(x0, y0, x1 - x0, y1 - y0)


@dataclass(frozen=True)
class Word:
    text: str
    box: Box
    confidence: float   # 0..1

    def moved(self, dx: int, dy: int) -> Word:
        return replace(self, box=self.box.moved(dx, dy))

    def shrunk(self, factor: int) -> Word:
        return replace(self, box=self.box.shrunk(factor))


@dataclass(frozen=True)
class Line:
    words: tuple[Word, ...]
    box: Box
    confidence: float

    @property
    def text(self) -> str:
        return " ".join(word.text for word in self.words)

    def moved(self, dx: int, dy: int) -> Line:
        return Line(tuple(w.moved(dx, dy) for w in self.words), self.box.moved(dx, dy), self.confidence)

    def shrunk(self, factor: int) -> Line:
        return Line(tuple(w.shrunk(factor) for w in self.words), self.box.shrunk(factor), self.confidence)

    def clipped(self, bounds: Box) -> Line | None:
        """The line cut to ``bounds``: each word's box cut to it, words wholly outside dropped
        (None when none is left); the confidence stays the line's."""
        words = tuple(replace(w, box=box) for w in self.words if (box := w.box.clipped(bounds)) is not None)
        box = self.box.clipped(bounds)
        if not words or box is None:
            return None
        return Line(words, box, self.confidence)

    @staticmethod
    def of_words(words: tuple[Word, ...], box: Box | None = None) -> Line:
        """A line of these words (at least one): its box around theirs unless given, its
        confidence their mean."""
        return Line(words, box or Box.around([w.box for w in words]), sum(w.confidence for w in words) / len(words))


class OcrEngine(Protocol):
    """Reads an RGB image; boxes in that image's pixels, lines top to bottom, words left to right."""

    name: str
    version: str

    def read(self, image: Image.Image) -> list[Line]: ...

    def close(self) -> None:
        """Free the model (on the thread that read)."""
        ...


class BoxJson(TypedDict):
    x: int
    y: int
    width: int
    height: int
    space: str


def box_json(box: Box) -> BoxJson:
    return {"x": box.x, "y": box.y, "width": box.width, "height": box.height, "space": "screen"}


def word_json(word: Word) -> dict[str, object]:
    cx, cy = word.box.center
    return {"text": word.text, "box": box_json(word.box), "center": {"x": cx, "y": cy},
            "confidence": round(word.confidence, 4)}


def line_json(line: Line) -> dict[str, object]:
    cx, cy = line.box.center
    return {"text": line.text, "box": box_json(line.box), "center": {"x": cx, "y": cy},
            "confidence": round(line.confidence, 4), "words": [word_json(w) for w in line.words]}
