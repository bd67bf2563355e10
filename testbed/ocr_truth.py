"""Text whose boxes we know because we drew it, and the scores an OCR result gets against it:
word recall and precision (same text, overlapping box) and the mean box overlap (IoU) of the
words found. Used by the tests and by benchmarks/bench_ocr.py."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from desktopd.vision.text import Box, Line

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf",
         "DejaVuSansCondensed.ttf")
SIZES = (12, 13, 14, 16, 20, 28)
# (text colour, background): dark on light, light on dark, low contrast, coloured.
COLOURS = (((0, 0, 0), (255, 255, 255)), ((255, 255, 255), (32, 48, 96)),
           ((90, 90, 90), (230, 230, 230)), ((180, 20, 20), (255, 250, 240)),
           ((0, 90, 0), (240, 255, 240)))
WORDS = ("Submit", "Cancel", "Username", "Password", "Settings", "Profile", "Search", "Download",
         "Invoice", "Amount", "Total", "Shipping", "Address", "Country", "Remember", "Forgot",
         "Account", "Balance", "Report", "Monday", "Weather", "Storage", "Network", "Display",
         "Keyboard", "Printer", "Calendar", "Message", "Contacts", "Library", "History", "Export",
         "Import", "Preview", "Archive", "Delete", "Rename", "Window", "Format", "Options")
# Fewer than this IoU is another place on the screen, not a looser box around the same word.
MATCH_IOU = 0.3


@dataclass(frozen=True)
class TrueWord:
    text: str
    box: Box


def word_box(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str,
             font: ImageFont.FreeTypeFont) -> Box:
    x0, y0, x1, y1 = draw.textbbox(xy, text, font=font)
    return Box(x0, y0, x1 - x0, y1 - y0)


def draw_line(draw: ImageDraw.ImageDraw, xy: tuple[int, int], words: list[str],
              font: ImageFont.FreeTypeFont, colour: tuple[int, int, int]) -> list[TrueWord]:
    """Draw words separated by spaces; the truth is each word's ink box."""
    x, y = xy
    out = []
    space = draw.textlength(" ", font=font)
    for word in words:
        draw.text((x, y), word, font=font, fill=colour)
        out.append(TrueWord(word, word_box(draw, (x, y), word, font)))
        x += round(draw.textlength(word, font=font) + space)
    return out


def random_words(rng: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.75:
            out.append(rng.choice(WORDS))
        elif kind < 0.9:
            out.append(str(rng.randint(10, 99999)))
        else:
            out.append("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 8))))
    return out


def synthetic_screen(size: tuple[int, int] = (1920, 1080), seed: int = 29) -> tuple[Image.Image, list[TrueWord]]:
    """A screen of panels, each a colour scheme and a font, filled with lines of words."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, (245, 245, 245))
    draw = ImageDraw.Draw(image)
    truth: list[TrueWord] = []
    panel_w, panel_h = 480, 270
    for top in range(0, size[1] - panel_h + 1, panel_h):
        for left in range(0, size[0] - panel_w + 1, panel_w):
            fg, bg = rng.choice(COLOURS)
            font = ImageFont.truetype(f"{FONT_DIR}/{rng.choice(FONTS)}", rng.choice(SIZES))
            draw.rectangle((left, top, left + panel_w - 1, top + panel_h - 1), fill=bg)
            line_h = round(font.size * 1.9)
            for y in range(top + 12, top + panel_h - line_h, line_h):
                x = left + 16
                words = random_words(rng, 6)
                while words and draw.textlength(" ".join(words), font=font) > panel_w - 32:
                    words.pop()
                truth += draw_line(draw, (x, y), words, font, fg)
    return image, truth


@dataclass(frozen=True)
class Score:
    recall: float
    precision: float
    mean_iou: float
    truth_words: int
    read_words: int


def normalise(text: str) -> str:
    return text.strip(string.punctuation + "“”‘’")


def score(lines: list[Line], truth: list[TrueWord]) -> Score:
    """Each true word matches at most one read word with the same text and IoU >= MATCH_IOU."""
    read = [w for line in lines for w in line.words if normalise(w.text)]
    used: set[int] = set()
    ious = []
    for true in truth:
        best, best_iou = None, MATCH_IOU
        for i, word in enumerate(read):
            if i in used or normalise(word.text) != true.text:
                continue
            overlap = word.box.iou(true.box)
            if overlap >= best_iou:
                best, best_iou = i, overlap
        if best is not None:
            used.add(best)
            ious.append(best_iou)
    matched = len(ious)
    return Score(recall=matched / len(truth) if truth else 1.0,
                 precision=matched / len(read) if read else 1.0,
                 mean_iou=sum(ious) / matched if matched else 0.0,
                 truth_words=len(truth), read_words=len(read))
