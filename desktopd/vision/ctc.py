"""Reading a line model's per-step code probabilities as words (best path: the likeliest code at
each step, repeats merged, the model's blank dropped), each with the steps it spans and a
confidence: the least sure of its characters' peak probabilities."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SPACE = " "


@dataclass(frozen=True)
class StepWord:
    text: str
    first_step: int
    last_step: int   # inclusive
    confidence: float


def words(probabilities: npt.NDArray[np.float32], blank: int, code_text: dict[int, str]) -> list[StepWord]:
    """The words of one line, left to right."""
    if probabilities.shape[0] == 0:
        return []
    best = probabilities.argmax(axis=1)
    peak = probabilities.max(axis=1)
    starts = np.flatnonzero(np.r_[True, best[1:] != best[:-1]])
    ends = np.r_[starts[1:], best.size] - 1
    peaks = np.maximum.reduceat(peak, starts)
    out: list[StepWord] = []
    text: list[str] = []
    first = last = 0
    confidence = 1.0
    for start, end, code, sure in zip(starts.tolist(), ends.tolist(), best[starts].tolist(), peaks.tolist()):
        if code == blank:
            continue
        character = code_text.get(code, "")
        if character == SPACE or not character:
            if text:
                out.append(StepWord("".join(text), first, last, confidence))
            text, confidence = [], 1.0
            continue
        if not text:
            first = start
        text.append(character)
        last = end
        confidence = min(confidence, sure)
    if text:
        out.append(StepWord("".join(text), first, last, confidence))
    return out
