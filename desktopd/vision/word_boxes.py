"""Word boxes from a line's pixels: the recogniser says which time steps a word spans, which is
where its letters were recognised, not where its ink begins and ends. Each word is given the
stretch of the line between the gaps to its neighbours, and its box is the ink found there."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .ctc import StepWord
from .tess_model import STEP_PIXELS
from .text import Box

# A pixel this far from the line's background grey is ink (anti-aliased edges included).
INK_DIFFERENCE = 24


def _stretches(steps: Sequence[StepWord], scale: float, width: int) -> list[tuple[int, int]]:
    """[x0, x1) of the line image for each word: cut halfway between neighbours."""
    spans = [(w.first_step * STEP_PIXELS / scale, (w.last_step + 1) * STEP_PIXELS / scale) for w in steps]
    cuts = [0.0] + [(left[1] + right[0]) / 2 for left, right in zip(spans, spans[1:])] + [float(width)]
    return [(max(0, round(a)), min(width, round(b))) for a, b in zip(cuts, cuts[1:])]


def boxes(steps: Sequence[StepWord], scale: float, line: npt.NDArray[np.uint8], background: int) -> list[Box]:
    """A box per word in ``line``'s pixels (the image the model read, before scaling)."""
    ink = np.abs(line.astype(np.int16) - background) > INK_DIFFERENCE
    height, width = ink.shape
    out = []
    for x0, x1 in _stretches(steps, scale, width):
        columns = np.flatnonzero(ink[:, x0:x1].any(axis=0))
        if columns.size == 0:   # no ink where the word was read: the stretch itself
            out.append(Box(x0, 0, max(1, x1 - x0), height))
            continue
        left, right = x0 + int(columns[0]), x0 + int(columns[-1]) + 1
        rows = np.flatnonzero(ink[:, left:right].any(axis=1))
        out.append(Box(left, int(rows[0]), right - left, int(rows[-1]) + 1 - int(rows[0])))
    return out
