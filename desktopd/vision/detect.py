"""Where the text lines of a screen image are, found from the pixels alone (Pillow, no model), so
that the recogniser reads each line once instead of laying out the whole page itself.

Ink is local contrast: a pixel that differs from its left or upper neighbour by more than
INK_CONTRAST grey levels (glyph edges; flat fills and soft gradients are not ink), whatever the
colours. The ink mask is
cut recursively along empty rows and columns (an XY cut), and the pieces that share a row band
and stand a word's gap apart are joined into lines. Each line says its background, so a light
text on a dark fill is handed to the recogniser inverted: dark on light, the only way it reads."""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageOps

from .text import Box

INK_CONTRAST = 40
# Straight runs of ink at least this long, across or down, are rules (borders, frames, panel
# edges, underlines), taken out of the mask: a button's frame would otherwise leave no empty row
# or column between it and its caption. Letters' strokes are shorter but in large headings.
RULE_RUN = 32
# Columns of empty mask that separate two pieces of a row (the mask marks the pixel after each
# edge, so this is a gap of about 3 pixels of background: between words, rarely between letters).
COLUMN_GAP = 2
# Pieces this thin and this long are rules (borders, separators), never text, and lines do not
# join across them: a button row's captions stay apart.
RULE_THICKNESS = 3
RULE_LENGTH = 20
# Pieces join into a line when their gap is at most this times the taller one's height (a word
# space is about half of a line's ink height) and they overlap in height by half the smaller.
WORD_GAP = 0.9
BAND_OVERLAP = 0.5
# Smaller than this is a speck (noise, a cursor's edge), too small for a recogniser to read.
MIN_HEIGHT = 6
MIN_WIDTH = 3
# Lines are cut out with this much of their surroundings and set on a margin of their own
# background: the recogniser wants a little space around the ink.
CROP_PAD = 2
MARGIN = 6
# A piece taller than this is no single line (a table, a picture, lines that touch).
TALL = 64
# An ink pixel's weight in the mask (profiles are means over up to a screen's width or height).
INK_WEIGHT = 1 << 16


@dataclass(frozen=True)
class Spot:
    """A text line found in the image: its ink box (image pixels) and its background grey; a
    ``block`` is ink taller than a line that no cut divides (a table, a picture), left to the
    recogniser's own layout."""
    box: Box
    background: int
    light_on_dark: bool
    block: bool = False


def ink_mask(gray: Image.Image) -> Image.Image:
    """Ink (INK_WEIGHT * 255) where a pixel differs enough from its left or upper neighbour (an
    edge's far side), 0 elsewhere; mode F, for means."""
    across = ImageChops.difference(gray, _shifted(gray, 1, 0))
    down = ImageChops.difference(gray, _shifted(gray, 0, 1))
    mask = ImageChops.lighter(across, down).point(lambda v: 255 if v > INK_CONTRAST else 0)
    # The first column and row were compared with the black a shift brings in.
    mask.paste(0, (0, 0, 1, mask.height))
    mask.paste(0, (0, 0, mask.width, 1))
    rules = ImageChops.lighter(_long_runs(mask, 1, 0), _long_runs(mask, 0, 1))
    return ImageChops.subtract(mask, rules).convert("F").point(lambda v: v * INK_WEIGHT)


def _shifted(image: Image.Image, dx: int, dy: int) -> Image.Image:
    """``image`` moved by (dx, dy), black where it uncovers (a crop past the edges; much cheaper
    than ImageChops.offset in Debian's Pillow)."""
    return image.crop((-dx, -dy, image.width - dx, image.height - dy))


def _long_runs(mask: Image.Image, dx: int, dy: int) -> Image.Image:
    """The pixels of ``mask`` on unbroken runs of RULE_RUN or more along (dx, dy): an erosion
    and a dilation by a RULE_RUN long line, in doubling steps."""
    run, step = mask, 1
    while step < RULE_RUN:   # survives where the next 2 * step pixels are all ink
        run = ImageChops.darker(run, _shifted(run, -dx * step, -dy * step))
        step *= 2
    step = 1
    while step < RULE_RUN:   # and back over the whole run
        run = ImageChops.lighter(run, _shifted(run, dx * step, dy * step))
        step *= 2
    return run


def _profile(mask: Image.Image, rect: tuple[int, int, int, int], rows: bool) -> bytes:
    """One byte a row (or column) of ``rect``: 0 where it holds no ink. The mask's ink is scaled
    so that the mean of a single ink pixel among thousands still clips to 255, not rounds to 0."""
    x0, y0, x1, y1 = rect
    size = (1, y1 - y0) if rows else (x1 - x0, 1)
    return mask.crop(rect).resize(size, Image.Resampling.BOX).convert("L").tobytes()


INKED = re.compile(rb"[^\x00]+")


def _runs(profile: bytes, min_gap: int) -> list[tuple[int, int]]:
    """[start, end) of the inked stretches of ``profile`` separated by at least ``min_gap`` empty."""
    runs: list[tuple[int, int]] = []
    for found in INKED.finditer(profile):
        if runs and found.start() - runs[-1][1] < min_gap:
            runs[-1] = (runs[-1][0], found.end())
        else:
            runs.append((found.start(), found.end()))
    return runs


def pieces(mask: Image.Image) -> list[Box]:
    """The XY cut: rectangles of ink no empty row or wide enough empty column divides. A rect of
    one line's height is cut only at gaps wider than a word space (its pieces are lines); a
    taller one at any gap between columns of ink."""
    out: list[Box] = []
    todo = [(0, 0, mask.width, mask.height)]
    while todo:
        x0, y0, x1, y1 = todo.pop()
        bands = _runs(_profile(mask, (x0, y0, x1, y1), rows=True), 1)
        if len(bands) > 1:
            todo.extend((x0, y0 + a, x1, y0 + b) for a, b in bands)
            continue
        if not bands:
            continue
        if bands[0] != (0, y1 - y0):
            todo.append((x0, y0 + bands[0][0], x1, y0 + bands[0][1]))
            continue
        gap = COLUMN_GAP if y1 - y0 > TALL else max(COLUMN_GAP, int(WORD_GAP * (y1 - y0)) + 1)
        columns = _runs(_profile(mask, (x0, y0, x1, y1), rows=False), gap)
        if len(columns) > 1:
            todo.extend((x0 + a, y0, x0 + b, y1) for a, b in columns)
        elif columns:
            # Trimmed to its columns; its rows may now split again (a border beside it is gone).
            a, b = columns[0]
            if (a, b) != (0, x1 - x0):
                todo.append((x0 + a, y0, x0 + b, y1))
            else:
                out.append(Box(x0, y0, x1 - x0, y1 - y0))
    return out


def _is_rule(box: Box) -> bool:
    return ((box.width <= RULE_THICKNESS and box.height >= RULE_LENGTH)
            or (box.height <= RULE_THICKNESS and box.width >= RULE_LENGTH))


def _joins(line: Box, piece: Box) -> bool:
    overlap = min(line.y + line.height, piece.y + piece.height) - max(line.y, piece.y)
    if overlap < BAND_OVERLAP * min(line.height, piece.height):
        return False
    gap = piece.x - (line.x + line.width)
    return gap <= WORD_GAP * max(line.height, piece.height)


def _blocked(left: Box, right: Box, rules: list[Box]) -> bool:
    """A rule stands between the two boxes (in their gap, at their height)."""
    top = max(left.y, right.y)
    bottom = min(left.y + left.height, right.y + right.height)
    return any(left.x + left.width <= r.x < right.x and r.y < bottom and top < r.y + r.height
               for r in rules)


def joined(found: list[Box]) -> list[Box]:
    """Pieces left to right, each joined to the line it continues (else it starts one)."""
    rules = [box for box in found if _is_rule(box)]
    words = sorted((b for b in found if not _is_rule(b)), key=lambda b: (b.x, b.y))
    tallest = max((b.height for b in words), default=0)
    done: list[Box] = []
    open_lines: list[Box] = []
    for piece in words:
        # Lines that end further left than any piece's word gap can reach are complete.
        reach = [line.x + line.width + WORD_GAP * max(line.height, tallest) >= piece.x for line in open_lines]
        done.extend(line for line, near in zip(open_lines, reach) if not near)
        open_lines = [line for line, near in zip(open_lines, reach) if near]
        for i, line in enumerate(open_lines):
            if _joins(line, piece) and not _blocked(line, piece, rules):
                open_lines[i] = Box.around([line, piece])
                break
        else:
            open_lines.append(piece)
    return done + open_lines


def background(gray: Image.Image, box: Box) -> tuple[int, bool]:
    """The box's most common grey (its fill) and whether the ink is lighter than it."""
    crop = gray.crop((box.x, box.y, box.x + box.width, box.y + box.height))
    histogram = crop.histogram()
    fill = max(range(256), key=histogram.__getitem__)
    mean = crop.resize((1, 1), Image.Resampling.BOX).tobytes()[0]
    return fill, mean > fill


def text_lines(gray: Image.Image) -> list[Spot]:
    """The text lines of a greyscale image, top to bottom, each with its polarity."""
    spots = []
    for box in joined(pieces(ink_mask(gray))):
        if box.height < MIN_HEIGHT or box.width < MIN_WIDTH:
            continue
        # The mask reaches a pixel past the ink's right and lower edges: take it back.
        ink = Box(box.x, box.y, max(1, box.width - 1), max(1, box.height - 1))
        fill, light = background(gray, ink)
        spots.append(Spot(ink, fill, light, block=box.height > TALL))
    return sorted(spots, key=lambda s: (s.box.y, s.box.x))


def line_image(gray: Image.Image, spot: Spot) -> tuple[Image.Image, tuple[int, int]]:
    """The line as the recogniser should see it (dark ink on a light margin) and where that
    image's top-left pixel lies in ``gray``."""
    x0 = max(0, spot.box.x - CROP_PAD)
    y0 = max(0, spot.box.y - CROP_PAD)
    x1 = min(gray.width, spot.box.x + spot.box.width + CROP_PAD)
    y1 = min(gray.height, spot.box.y + spot.box.height + CROP_PAD)
    crop = gray.crop((x0, y0, x1, y1))
    fill = spot.background
    if spot.light_on_dark:
        crop, fill = ImageOps.invert(crop), 255 - fill
    return ImageOps.expand(crop, border=MARGIN, fill=fill), (x0 - MARGIN, y0 - MARGIN)
