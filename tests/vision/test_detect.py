"""The line detection pass (desktopd/vision/detect.py) on images we draw, and the cache of
recognised lines with the real Tesseract: no display needed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from PIL import Image, ImageDraw, ImageFont

from desktopd.vision.detect import text_lines
from desktopd.vision.line_cache import LineCache
from desktopd.vision.tesseract import TesseractEngine, TesseractUnavailable
from desktopd.vision.text import Box, Line
from testbed.ocr_truth import FONT_DIR, TrueWord, draw_line, score

FONT = ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", 14)


def drawn_form() -> tuple[Image.Image, list[tuple[Box, bool]], list[TrueWord]]:
    """Dark text on white, white text on a dark panel that shares an edge with a light one, and
    captions on filled buttons with frames: each line's ink box and whether it is light on dark."""
    image = Image.new("RGB", (900, 400), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    lines: list[tuple[Box, bool]] = []
    truth: list[TrueWord] = []

    def line(at: tuple[int, int], words: list[str], colour: tuple[int, int, int], light: bool) -> None:
        drawn = draw_line(draw, at, words, FONT, colour)
        truth.extend(drawn)
        lines.append((Box.around([w.box for w in drawn]), light))

    line((20, 20), ["Invoice", "Amount", "Total"], (0, 0, 0), False)
    line((20, 50), ["Shipping", "Address", "Country"], (0, 0, 0), False)
    draw.rectangle((0, 90, 449, 220), fill=(32, 48, 96))
    draw.rectangle((450, 90, 899, 220), fill=(240, 240, 240))
    line((20, 110), ["Settings", "Profile"], (255, 255, 255), True)
    line((20, 150), ["Network", "Display"], (255, 255, 255), True)
    line((470, 110), ["Keyboard", "Printer"], (40, 40, 40), False)
    for i, (caption, fill) in enumerate((("Submit", (30, 58, 138)), ("Delete", (185, 28, 28)),
                                         ("Export", (22, 101, 52)))):
        left = 20 + i * 130
        draw.rectangle((left, 260, left + 110, 300), fill=fill, outline=(10, 10, 10))
        line((left + 20, 272), [caption], (255, 255, 255), True)
    return image, lines, truth


def test_every_drawn_line_is_found_once_with_its_polarity():
    image, lines, _ = drawn_form()
    spots = text_lines(image.convert("L"))
    for box, light in lines:
        near = [s for s in spots if s.box.iou(box) > 0]
        assert len(near) == 1, (box, near)
        assert near[0].box.iou(box) >= 0.7, (box, near[0])
        assert near[0].light_on_dark is light, (box, near[0])
    assert len(spots) == len(lines), spots


def test_an_image_without_text_has_no_lines():
    image = Image.new("RGB", (400, 200), (200, 210, 220))
    ImageDraw.Draw(image).rectangle((50, 50, 350, 150), fill=(20, 30, 120), outline=(0, 0, 0))
    assert text_lines(image.convert("L")) == []


class CountingEngine(TesseractEngine):
    """The real engine, counting the line images it hands to Tesseract."""

    def __init__(self) -> None:
        self.recognised = 0
        self._count_lock = threading.Lock()
        super().__init__(cache=LineCache())

    def recognise(self, gray: Image.Image, mode: int) -> list[Line]:
        with self._count_lock:
            self.recognised += 1
        return super().recognise(gray, mode)


@pytest.fixture
def engine() -> Iterator[CountingEngine]:
    try:
        made = CountingEngine()
    except TesseractUnavailable as exc:
        pytest.skip(str(exc))
    yield made
    made.close()


def texts(lines: list[Line]) -> list[str]:
    return [line.text for line in lines]


def test_the_drawn_form_is_read_whole_dark_buttons_included(engine):
    image, _, truth = drawn_form()
    got = score(engine.read(image), truth)
    assert got.recall == 1.0 and got.precision == 1.0 and got.mean_iou >= 0.8, got


def assert_only_changed_lines_are_recognised(read: Callable[[Image.Image], list[Line]],
                                             recognised: Callable[[], int]) -> None:
    """A repeat read recognises nothing; after one line changes, that line alone, its old text
    gone (``recognised``: how many line images the engine has recognised so far)."""
    image, lines, _ = drawn_form()
    first = read(image)
    assert recognised() == len(lines)
    assert read(image) == first and recognised() == len(lines)

    changed = image.copy()
    draw = ImageDraw.Draw(changed)
    box = lines[1][0]   # "Shipping Address Country" becomes other words at the same place
    draw.rectangle((box.x, box.y, box.x + box.width, box.y + box.height), fill=(255, 255, 255))
    draw_line(draw, (20, 50), ["Shopping", "Addresses", "County"], FONT, (0, 0, 0))
    again = read(changed)
    assert recognised() == len(lines) + 1   # the changed line alone
    assert "Shopping Addresses County" in texts(again)
    assert "Shipping Address Country" not in texts(again)
    assert [t for t in texts(again) if "Sh" not in t] == [t for t in texts(first) if "Sh" not in t]


def test_a_repeated_read_comes_from_the_cache_and_a_changed_line_is_read_again(engine):
    assert_only_changed_lines_are_recognised(engine.read, lambda: engine.recognised)


def test_the_cache_forgets_the_least_recently_used_first():
    cache = LineCache(capacity=2)
    one = [Line((), Box(0, 0, 1, 1), 1.0)]
    cache.put(b"a", one)
    cache.put(b"b", [])
    assert cache.get(b"a") == one   # a is now the most recent
    cache.put(b"c", [])
    assert cache.get(b"b") is None and cache.get(b"a") == one and len(cache) == 2


@pytest.mark.parametrize("size", [12, 13, 14])
def test_a_long_path_in_small_text_is_read_letter_for_letter(engine, size):
    """An address bar's path: read at its own size, one letter goes wrong and the word's
    confidence with it; the weak word read again larger comes out right."""
    path = "/work/wt/ocr/images/chromium/rootfs/usr/share/desktopd/start.html"
    image = Image.new("RGB", (700, 40), (241, 243, 244))
    ImageDraw.Draw(image).text((20, 12), path, font=ImageFont.truetype(f"{FONT_DIR}/DejaVuSans.ttf", size),
                               fill=(31, 31, 31))
    (line,) = engine.read(image)
    assert line.text == path and line.words[0].confidence >= 0.5, line
