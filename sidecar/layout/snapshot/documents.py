"""A frame's document read from a DOM snapshot, how its coordinates map into the tab's space, and
placing one of its boxes there (with its clip and line fragments)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..geometry import clipping
from ..geometry.spaces import Placement, Rect
from ...cdp.protocol.cdp_types import DOMSnapshotDocumentSnapshot


@dataclass
class Document:
    """One frame's document inside a snapshot."""

    index: int
    frame_id: str
    url: str
    scroll_x: float
    scroll_y: float
    raw: DOMSnapshotDocumentSnapshot = field(repr=False)   # its part of the reply (the DOM fallback)
    boxes: dict[int, Rect] = field(default_factory=dict)        # backendNodeId -> border box
    # backendNodeId -> (top, right, bottom, left) border + padding, CSS px; only elements with
    # some (a text node reports its parent's style, and has no padding of its own).
    insets: dict[int, tuple[float, float, float, float]] = field(default_factory=dict)
    fixed: set[int] = field(default_factory=set)                 # anchored to the viewport
    clips: dict[int, Rect] = field(default_factory=dict)         # backendNodeId -> its clip
    # backendNodeId -> its line fragments, for inline content broken over lines (fragments.py)
    fragments: dict[int, tuple[Rect, ...]] = field(default_factory=dict)
    content_origin: dict[int, tuple[float, float]] = field(default_factory=dict)  # iframes
    child_documents: dict[int, int] = field(default_factory=dict)   # iframe backendId -> doc index
    has_sticky: bool = False


@dataclass(frozen=True)
class DocumentPlacement:
    """How one document's coordinates map into the tab's space (see spaces.Placement)."""

    dx: float
    dy: float
    fixed: bool = False
    clip: Rect | None = None
    clip_fixed: bool = False
    top_level: bool = False       # the tab's own document: its fixed nodes follow the viewport
    scroll_x: float = 0.0         # (top level only) the scroll when the snapshot was taken
    scroll_y: float = 0.0


TOP_LEVEL = DocumentPlacement(0.0, 0.0, top_level=True)


def place(doc: Document, placed: DocumentPlacement, backend_id: int, rect: Rect,
          insets: tuple[float, float, float, float] | None = None,
          fragments: tuple[Rect, ...] | None = None) -> Placement:
    """A rectangle in ``doc``'s own coordinates, moved into the tab's space, with its clip (its
    frames' visible area and its clipping ancestors', clipping.py) and line ``fragments``."""
    own_clip = doc.clips.get(backend_id) if doc.clips else None
    if placed.top_level and backend_id in doc.fixed:
        dx, dy = -doc.scroll_x, -doc.scroll_y
        return Placement(rect.shifted(dx, dy), fixed=True,
                         clip=own_clip.shifted(dx, dy) if own_clip is not None else None,
                         clip_fixed=True, insets=insets, fragments=_shifted(fragments, dx, dy))
    # Most nodes are in the top-level document (no shift): keep their box. Same values: boxes are
    # built as "0.0 + ...", so never hold -0.0, the one float that "+ 0.0" would change.
    if placed.dx == 0.0 and placed.dy == 0.0:
        moved = rect
    else:
        moved = rect.shifted(placed.dx, placed.dy)
        own_clip = own_clip.shifted(placed.dx, placed.dy) if own_clip is not None else None
        fragments = _shifted(fragments, placed.dx, placed.dy)
    clip = placed.clip
    if own_clip is not None:
        # A frame's clip is in the space of its owner, which is the space of the frame's nodes.
        clip = clipping.intersect(clip, own_clip)
    return Placement(moved, placed.fixed, clip, placed.clip_fixed if placed.clip is not None else placed.fixed,
                     insets, fragments)


def _shifted(fragments: tuple[Rect, ...] | None, dx: float, dy: float) -> tuple[Rect, ...] | None:
    if fragments is None or (dx == 0.0 and dy == 0.0):
        return fragments
    return tuple(rect.shifted(dx, dy) for rect in fragments)


def visible_clip(owner: Placement) -> Rect | None:
    if owner.clip is None or owner.clip_fixed != owner.fixed:
        return owner.rect
    return owner.rect.intersection(owner.clip) or Rect(owner.rect.x, owner.rect.y, 0.0, 0.0)
