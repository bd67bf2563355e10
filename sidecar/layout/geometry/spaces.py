"""Rectangles and the three coordinate spaces of /layout, and how one maps onto the next.

* ``document``: CSS pixels of the tab's top-level document (origin: its top-left corner, so a
  node's document box does not change when the page scrolls). Boxes inside iframes are moved
  into this space through the iframes' content boxes and scroll offsets.
* ``viewport``: CSS pixels relative to the top-left corner of the visible (visual) viewport:
  ``viewport = document - visualViewport.pageX/Y``.
* ``screen``: X screen pixels of the desktop, what desktopd's pointer takes:
  ``screen = viewportOrigin + viewport * pinchScale * devicePixelRatio`` where devicePixelRatio
  already holds both the page zoom and the device scale factor.

position:fixed content is anchored to the layout viewport, not the document: it is stored
relative to the layout viewport and moved into document space with the current scroll, so a
cached layout stays right after the page scrolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Rect(NamedTuple):
    """A rectangle. Tuples, not dataclasses: thousands are made and compared per request, and a
    tuple is built and compared in C."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def shifted(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.width, self.height)

    def scaled(self, factor: float, origin_x: float = 0.0, origin_y: float = 0.0) -> Rect:
        return Rect(origin_x + self.x * factor, origin_y + self.y * factor,
                    self.width * factor, self.height * factor)

    def intersection(self, other: Rect) -> Rect | None:
        left, top = max(self.x, other.x), max(self.y, other.y)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return None
        return Rect(left, top, right - left, bottom - top)

    def as_json(self) -> dict[str, float]:
        return {"x": round(self.x, 2), "y": round(self.y, 2),
                "width": round(self.width, 2), "height": round(self.height, 2)}


class Placement(NamedTuple):
    """Where a node's border box is, independent of the current scroll (a tuple, as Rect).

    ``rect`` is in document space, or in layout-viewport space when ``fixed`` (position:fixed
    content, and everything inside a fixed iframe). ``clip`` is the visible area of the frame the
    node lives in (its iframes' content boxes), in the space named by ``clip_fixed``.
    ``clip`` also holds the node's clipping ancestors' areas (overflow, clip-path, contain: paint).
``insets`` are the (top, right, bottom, left) border + padding widths in CSS px (None: no
    border or padding): the content box is ``rect`` inset by them (see content_box).
    """

    rect: Rect
    fixed: bool = False
    clip: Rect | None = None
    clip_fixed: bool = False
    insets: tuple[float, float, float, float] | None = None
    # Inline content broken over lines: each line's part, in the space of ``rect`` (None: the
    # box is the one fragment). The click point is inside the largest visible one.
    fragments: tuple[Rect, ...] | None = None


def content_box(x: float, y: float, width: float, height: float,
                insets: tuple[float, float, float, float] | None) -> tuple[float, float, float, float]:
    """A border box inset by border + padding (top, right, bottom, left), never negative in size.

    For a transformed element the border box is the bounding box of its transformed shape and
    the insets are the untransformed CSS widths: the result is that bounding box inset by them.
    """
    if insets is None:
        return x, y, width, height
    top, right, bottom, left = insets
    return x + left, y + top, max(0.0, width - left - right), max(0.0, height - top - bottom)


@dataclass(frozen=True)
class View:
    """The scroll, zoom and screen position of one tab right now (fresh for every request)."""

    layout_x: float            # layout viewport's scroll position, CSS px (document space)
    layout_y: float
    visual_x: float            # visual viewport's top-left in document space, CSS px
    visual_y: float
    visual_width: float        # visible viewport size, CSS px
    visual_height: float
    pinch_scale: float         # visual viewport scale (pinch zoom), 1 on a desktop
    zoom: float                # browser page zoom (Ctrl +/-), CSS px -> DIP
    device_pixel_ratio: float  # window.devicePixelRatio = zoom * device scale factor
    origin_x: float            # screen pixel of the visual viewport's top-left corner
    origin_y: float

    def to_document(self, placement: Placement) -> Rect:
        if placement.fixed:
            return placement.rect.shifted(self.layout_x, self.layout_y)
        return placement.rect

    def document_to_viewport(self, rect: Rect) -> Rect:
        return rect.shifted(-self.visual_x, -self.visual_y)

    def viewport_to_screen(self, rect: Rect) -> Rect:
        return rect.scaled(self.pinch_scale * self.device_pixel_ratio, self.origin_x, self.origin_y)

    def viewport_rect(self) -> Rect:
        return Rect(0.0, 0.0, self.visual_width, self.visual_height)

    def visible_part(self, placement: Placement) -> Rect | None:
        """The part of the node inside the viewport and its frames' clips (viewport space)."""
        box = self.document_to_viewport(self.to_document(placement))
        if box.width <= 0 or box.height <= 0:
            return None
        visible = box.intersection(self.viewport_rect())
        if visible is not None and placement.clip is not None:
            clip = Placement(placement.clip, placement.clip_fixed)
            visible = visible.intersection(self.document_to_viewport(self.to_document(clip)))
        return visible


@dataclass(frozen=True)
class WindowMetrics:
    """What the page knows about its browser window (window.screenX & co) and content area."""

    screen_x: float            # window.screenX/Y: the window's outer top-left, DIP
    screen_y: float
    outer_width: float         # window.outerWidth/Height, DIP (browser UI + content)
    outer_height: float
    content_width: float       # the content area (viewport incl. scrollbars), device pixels
    content_height: float


def viewport_origin(window: WindowMetrics, device_scale_factor: float, *,
                    shadow_frame: bool = False) -> tuple[float, float]:
    """The content area's top-left corner on the X screen, in screen pixels.

    Chromium draws its tab strip and toolbar (and any info bar) above the content and nothing
    below or beside it, so the content is bottom-aligned in the window, centred horizontally;
    a window-manager frame adds the same border left, right and bottom. The browser UI height is
    therefore measured, never assumed: outer height minus content height minus that border.
    """
    outer_width = window.outer_width * device_scale_factor
    outer_height = window.outer_height * device_scale_factor
    side = max(0.0, (outer_width - window.content_width) / 2)
    if shadow_frame:
        # Chromium on Wayland (``shadow_frame``) draws its own frame: the outer size includes a
        # shadow on every side that the compositor places outside the window's rectangle, so the
        # content starts at the window's left edge and below the UI, the shadow not counted.
        return (window.screen_x * device_scale_factor,
                window.screen_y * device_scale_factor + outer_height - 2 * side - window.content_height)
    left = window.screen_x * device_scale_factor + side
    top = window.screen_y * device_scale_factor + outer_height - side - window.content_height
    return left, top


def chromium_on_wayland(flags: str | None) -> bool:
    """Whether CHROMIUM_FLAGS put Chromium on Wayland (the image's DESKTOPD_BACKEND=sway does)."""
    return "--ozone-platform=wayland" in (flags or "").split()
