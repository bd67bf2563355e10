"""Finding a text among the words read: runs of consecutive words of one line, in reading order,
and, when nothing matches, the texts that come closest (what a 404 lists)."""

from __future__ import annotations

import difflib
import string
from dataclasses import dataclass

from .text import Box, Line, Word

EDGE_PUNCTUATION = string.punctuation + "“”‘’…"
MAX_CANDIDATES = 10


@dataclass(frozen=True)
class Match:
    text: str
    box: Box
    confidence: float

    def json(self) -> dict[str, object]:
        cx, cy = self.box.center
        return {"text": self.text, "box": {"x": self.box.x, "y": self.box.y, "width": self.box.width,
                                           "height": self.box.height, "space": "screen"},
                "center": {"x": cx, "y": cy}, "confidence": round(self.confidence, 4)}


def _of(words: tuple[Word, ...]) -> Match:
    return Match(" ".join(w.text for w in words), Box.around([w.box for w in words]),
                 min(w.confidence for w in words))


def _fits(span_text: str, query: str, exact: bool) -> bool:
    if exact:
        return span_text.strip(EDGE_PUNCTUATION) == query
    return query.casefold() in span_text.casefold()


def find(lines: list[Line], query: str, exact: bool) -> list[Match]:
    """The shortest word runs whose text is ``query`` (exact: case and all, punctuation at the
    run's ends aside) or contains it (not exact: any case), top to bottom, left to right."""
    query = " ".join(query.split())
    found: list[Match] = []
    for line in lines:
        words = line.words
        spans: list[tuple[int, int]] = []
        for start in range(len(words)):
            for end in range(start, len(words)):
                if _fits(" ".join(w.text for w in words[start:end + 1]), query, exact):
                    spans.append((start, end))
                    break
        # Keep the shortest: "Save" in "Save as" from start 0 and not also a longer run around it.
        minimal = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
        found.extend(_of(words[a:b + 1]) for a, b in minimal)
    return found   # lines come top to bottom and runs left to right: reading order


def closest(lines: list[Line], query: str) -> list[Match]:
    """Words and lines most like ``query``: what the caller may have meant."""
    pieces = [_of(line.words) for line in lines] + [_of((w,)) for line in lines for w in line.words]
    target = query.casefold()
    ranked = sorted(pieces, key=lambda m: -difflib.SequenceMatcher(None, target, m.text.casefold()).ratio())
    return ranked[:MAX_CANDIDATES]
