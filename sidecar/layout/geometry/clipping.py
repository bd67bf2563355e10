"""What clips each node, and which nodes are anchored to the viewport (position: fixed).

A node is clipped by every ancestor in its containing-block chain that clips its content:
``overflow`` other than visible (per axis, to the padding box), ``contain: paint``, and by its
own and those ancestors' ``clip-path`` / ``clip`` (approximated by the border box, or the
``clip: rect()`` given). An absolutely positioned node skips the ancestors between it and its
containing block (the nearest positioned or transformed ancestor); a fixed one skips all but
those inside a containing block for fixed content. Such a block is made by ``transform``,
``filter``, ``perspective``, ``backdrop-filter``, ``will-change`` of those, and ``contain``
layout/paint: content fixed inside one scrolls with it, so it is not anchored to the viewport.

Overflow on <html> and <body> applies to the viewport, which the view clips anyway: ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .spaces import Rect

_FAR = 1e9                    # an axis that does not clip
STATIC, RELATIVE, ABSOLUTE, FIXED = "static", "relative", "absolute", "fixed"


class OwnStyle(NamedTuple):
    """The clipping-related style of one element that has some (others pass their state on)."""

    position: str                    # static/relative/sticky/absolute/fixed
    self_region: Rect | None         # clip-path/clip: clips the element itself and its content
    content_region: Rect | None      # overflow/contain paint: clips its content only
    containing_block: bool           # a containing block for fixed (and absolute) descendants


class _State(NamedTuple):
    """What a plain child of a node inherits."""

    in_flow: Rect | None             # the clip of in-flow content
    absolute: Rect | None            # the clip of absolutely positioned content
    fixed: Rect | None               # the clip of fixed content
    anchored: bool                   # inside viewport-anchored content
    in_block: bool                   # inside a containing block for fixed content


_ROOT = _State(None, None, None, False, False)


@dataclass
class Clipping:
    """Per node index: its clip (None: none but the viewport's) and whether it is anchored."""

    clips: dict[int, Rect]
    anchored: set[int]


def intersect(a: Rect | None, b: Rect | None) -> Rect | None:
    if a is None:
        return b
    if b is None:
        return a
    return a.intersection(b) or Rect(max(a.x, b.x), max(a.y, b.y), 0.0, 0.0)


def propagate(parents: list[int], own: dict[int, OwnStyle]) -> Clipping:
    """Clips and anchoring of every node, nodes given parents first."""
    clips: dict[int, Rect] = {}
    anchored: set[int] = set()
    if not own:
        return Clipping(clips, anchored)
    child_state: list[_State] = [_ROOT] * len(parents)
    for index, parent in enumerate(parents):
        state = child_state[parent] if parent >= 0 else _ROOT
        style = own.get(index)
        if style is None:
            child_state[index] = state
            if state.in_flow is not None:
                clips[index] = state.in_flow
            if state.anchored:
                anchored.add(index)
            continue
        position = style.position
        if position == ABSOLUTE:
            base = state.absolute
        elif position == FIXED:
            base = state.fixed
        else:
            base = state.in_flow
        is_anchored = state.anchored or (position == FIXED and not state.in_block)
        self_clip = intersect(base, style.self_region)
        content = intersect(self_clip, style.content_region)
        block = style.containing_block
        child_state[index] = _State(
            content,
            content if block or position != STATIC else state.absolute,
            content if block else state.fixed,
            is_anchored,
            state.in_block or block)
        if self_clip is not None:
            clips[index] = self_clip
        if is_anchored:
            anchored.add(index)
    return Clipping(clips, anchored)


def overflow_region(overflow: str, box: Rect, borders: tuple[float, float, float, float]) -> Rect | None:
    """The padding box on the axes ``overflow`` (the computed shorthand) clips; None if neither."""
    parts = overflow.split()
    if not parts:
        return None
    clip_x = parts[0] != "visible"
    clip_y = (parts[1] if len(parts) > 1 else parts[0]) != "visible"
    if not clip_x and not clip_y:
        return None
    top, right, bottom, left = borders
    x, width = (box.x + left, max(0.0, box.width - left - right)) if clip_x else (-_FAR, 2 * _FAR)
    y, height = (box.y + top, max(0.0, box.height - top - bottom)) if clip_y else (-_FAR, 2 * _FAR)
    return Rect(x, y, width, height)


def padding_box(box: Rect, borders: tuple[float, float, float, float]) -> Rect:
    top, right, bottom, left = borders
    return Rect(box.x + left, box.y + top, max(0.0, box.width - left - right),
                max(0.0, box.height - top - bottom))


def clip_rect(value: str, box: Rect) -> Rect | None:
    """The legacy ``clip: rect(top, right, bottom, left)`` of an absolutely positioned box
    (offsets from its border box's top-left; auto: that edge); None for auto or unreadable."""
    if not value.startswith("rect("):
        return None
    parts = value[5:].rstrip(")").replace(",", " ").split()
    if len(parts) != 4:
        return None
    try:
        top, right, bottom, left = (None if p == "auto" else float(p[:-2] if p.endswith("px") else p)
                                    for p in parts)
    except ValueError:
        return None
    x0 = box.x + (left or 0.0)
    y0 = box.y + (top or 0.0)
    x1 = box.x + right if right is not None else box.right
    y1 = box.y + bottom if bottom is not None else box.bottom
    return Rect(x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0))


def makes_containing_block(transform: str, filter_: str, perspective: str, backdrop: str,
                           will_change: str, contain: str) -> bool:
    if transform not in ("none", "") or filter_ not in ("none", "") or \
            perspective not in ("none", "") or backdrop not in ("none", ""):
        return True
    if will_change not in ("auto", "") and any(
            name in will_change for name in ("transform", "filter", "perspective", "contain")):
        return True
    return contain not in ("none", "") and any(
        name in contain for name in ("layout", "paint", "strict", "content"))


def contains_paint(contain: str) -> bool:
    return any(name in contain for name in ("paint", "strict", "content"))
