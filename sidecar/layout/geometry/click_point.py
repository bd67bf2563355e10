"""Where to click a node: a screen point guaranteed inside it, as far as geometry can tell.

The centre of the node's box is not always inside what is visible of it: part of the box may be
clipped (a scroll box, an iframe, the viewport), and a link broken over two lines has a box
whose centre is on neither line. The click point is the centre of the largest visible part of
the node's fragments (its line boxes, fragments.py; else its border box), clipped by the
viewport and everything that clips the node (clipping.py), in whole screen pixels.
"""

from __future__ import annotations

from .spaces import Placement, Rect, View


def visible_parts(placement: Placement, view: View) -> list[Rect]:
    """Each fragment's visible part, viewport space (empty ones left out)."""
    dx, dy = -view.visual_x, -view.visual_y
    if placement.fixed:
        dx, dy = dx + view.layout_x, dy + view.layout_y
    left, top, right, bottom = 0.0, 0.0, view.visual_width, view.visual_height
    clip = placement.clip
    if clip is not None:
        cx, cy = clip.x - view.visual_x, clip.y - view.visual_y
        if placement.clip_fixed:
            cx, cy = cx + view.layout_x, cy + view.layout_y
        left, top = max(left, cx), max(top, cy)
        right, bottom = min(right, cx + clip.width), min(bottom, cy + clip.height)
    parts = []
    for rect in placement.fragments or (placement.rect,):
        x0, y0 = max(rect.x + dx, left), max(rect.y + dy, top)
        x1, y1 = min(rect.x + dx + rect.width, right), min(rect.y + dy + rect.height, bottom)
        if x1 > x0 and y1 > y0:
            parts.append(Rect(x0, y0, x1 - x0, y1 - y0))
    return parts


def click_point(placement: Placement, view: View) -> tuple[int, int] | None:
    """The screen pixel to click (None: nothing of the node is visible)."""
    centre = largest_centre(visible_parts(placement, view))
    return None if centre is None else screen_point(centre, view)


def largest_centre(parts: list[Rect]) -> tuple[float, float] | None:
    """The centre of the largest of ``parts`` (the first of equals); None if there are none."""
    if not parts:
        return None
    best = max(parts, key=lambda r: r.width * r.height)
    return best.x + best.width / 2, best.y + best.height / 2


def screen_point(point: tuple[float, float], view: View) -> tuple[int, int]:
    """A point of the visual viewport (CSS px) as the screen pixel it is drawn at."""
    k = view.pinch_scale * view.device_pixel_ratio
    return round(view.origin_x + point[0] * k), round(view.origin_y + point[1] * k)


def viewport_point(point: tuple[int, int], view: View) -> tuple[float, float]:
    """A screen pixel in the visual viewport's CSS px (where the browser hit-tests a click)."""
    k = view.pinch_scale * view.device_pixel_ratio
    return (point[0] - view.origin_x) / k, (point[1] - view.origin_y) / k
