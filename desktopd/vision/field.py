"""Where the input field beside a label is, read from pixels: the first edge (a colour change
from the background behind the label) to the label's right on its middle row, else below it on
the label's left column. The click goes just inside that edge."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from .text import Box

# A channel differing this much from the background is an edge (a field's border or fill).
EDGE_CONTRAST = 40
# How far to look for the field: to the right of the label, and below it.
REACH_RIGHT = 600
REACH_BELOW = 120
# The click lands this far inside the edge: past the border, on the field's text area.
INSIDE = 8


@dataclass(frozen=True)
class Field:
    x: int
    y: int
    side: str   # "right" or "below": where the field was found relative to the label


def _rgb(image: Image.Image, point: tuple[int, int]) -> tuple[int, int, int]:
    r, g, b = image.getpixel(point)   # type: ignore[misc]  # an RGB image's pixel is a triple
    return r, g, b


def _differs(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) >= EDGE_CONTRAST


def _scan(image: Image.Image, points: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first point whose colour differs from the first point's (the background)."""
    inside = [(x, y) for x, y in points if 0 <= x < image.width and 0 <= y < image.height]
    if not inside:
        return None
    background = _rgb(image, inside[0])
    for point in inside[1:]:
        if _differs(_rgb(image, point), background):
            return point
    return None


def beside(image: Image.Image, label: Box, origin: tuple[int, int]) -> Field | None:
    """The field next to ``label`` (screen pixels) in ``image``, whose top-left is ``origin`` on
    the screen; None when no edge is within reach."""
    rgb = image.convert("RGB")
    lx, ly = label.x - origin[0], label.y - origin[1]
    middle = ly + label.height // 2
    gap = max(4, label.height // 2)   # past the label's own ink
    start = lx + label.width + gap
    edge = _scan(rgb, [(x, middle) for x in range(start, start + REACH_RIGHT)])
    if edge is not None:
        return Field(edge[0] + INSIDE + origin[0], middle + origin[1], "right")
    column = lx + min(label.width // 2, INSIDE)
    top = ly + label.height + 2
    edge = _scan(rgb, [(column, y) for y in range(top, top + REACH_BELOW)])
    if edge is not None:
        return Field(column + INSIDE + origin[0], edge[1] + INSIDE + origin[1], "below")
    return None
