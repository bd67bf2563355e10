"""Layout nodes for one view: each record with its bounds in the three spaces, and its JSON.

This is the hot loop of every request after a scroll, a full capture or a patch that moved part
of the page (a mid-page insert moves half of it). A node whose record and placement equal those
of the tab's last answer for the same view is reused whole, dict and JSON. Any other node gets
its geometry by plain float arithmetic (the maths of geometry.View) and its JSON from one
template: the same bytes ``json.dumps`` writes (the encoder tests compare the two), at about half
the cost of building and dumping nested dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .axtree import Record
from .encoding import dumps as json_bytes
from .geometry import Placement, View, content_box
from .memory import release_later


@dataclass
class NodeCache:
    """One query option's last answer: handed on from capture to capture of a tab."""

    view: View | None = None
    # nodeId -> (record, placement, node, node JSON, record JSON without its closing brace)
    entries: dict[str, tuple[Record, Placement | None, dict[str, Any], bytes, bytes]] = field(
        default_factory=dict)


class _Numbers(dict):
    """value -> (round(value, 2), its JSON text), each distinct value worked out once: a page's
    boxes share a few thousand distinct coordinates (measured: 1,294 of 17,340 snapshot values),
    and a dict hit costs a fraction of round() and repr(). Zeros are never stored: 0.0 == -0.0,
    yet they round (and encode) differently."""

    def __missing__(self, value: float) -> tuple[float, str]:
        rounded = round(value, 2)
        pair = (rounded, repr(rounded))           # repr: how json.dumps writes a float
        if value:
            self[value] = pair
        return pair


# The geometry members of a node, in the order the node dict has them (json.dumps of the dict
# writes exactly this). Placeholders: content box x/y/w/h, border box x/y/w/h, viewport x/y (its
# w/h repeat the border box's), screen x/y/w/h, centre x/y, visible, fullyVisible.
_GEOMETRY_JSON = (
    ',"bounds":{"space":"document","x":%s,"y":%s,"width":%s,"height":%s,'
    '"borderBox":{"x":%s,"y":%s,"width":%s,"height":%s}},'
    '"viewport":{"space":"viewport","borderBox":{"x":%s,"y":%s,"width":%s,"height":%s}},'
    '"screen":{"space":"screen","borderBox":{"x":%s,"y":%s,"width":%s,"height":%s},'
    '"center":{"x":%d,"y":%d}},"visible":%s,"fullyVisible":%s}')
_NO_GEOMETRY = {"bounds": None, "viewport": None, "screen": None, "visible": False,
                "fullyVisible": False}
_NO_GEOMETRY_JSON = b"," + json_bytes(_NO_GEOMETRY)[1:]
_JSON_BOOL = {True: "true", False: "false"}


def nodes(records: list[Record], placements: list[Placement | None], view: View,
          cache: NodeCache) -> tuple[list[dict], list[bytes]]:
    """Each record with its bounds for ``view``, and each one's JSON; updates ``cache``."""
    if cache.view != view:
        cache.view, cache.entries = view, {}
    old, entries = cache.entries, {}
    lx, ly, vx, vy = view.layout_x, view.layout_y, view.visual_x, view.visual_y
    vw, vh = view.visual_width, view.visual_height
    k = view.pinch_scale * view.device_pixel_ratio
    ox, oy = view.origin_x, view.origin_y
    result: list[dict] = []
    result_json: list[bytes] = []
    append, append_json, num, template = result.append, result_json.append, _Numbers(), _GEOMETRY_JSON
    for record, placement in zip(records, placements):
        node_id = record["nodeId"]
        hit = old.get(node_id)
        same_record = hit is not None and (hit[0] is record or hit[0] == record)
        if same_record and hit[1] == placement:
            entries[node_id] = hit
            append(hit[2])
            append_json(hit[3])
            continue
        # A node's JSON is its record's members, then its geometry's: a record that only moved
        # keeps the JSON of its members.
        prefix = hit[4] if same_record else json_bytes(record)[:-1]
        if placement is None:
            node = {**record, **_NO_GEOMETRY}
            encoded = prefix + _NO_GEOMETRY_JSON
        else:
            rect = placement.rect
            x, y, w, h = rect.x, rect.y, rect.width, rect.height
            if placement.fixed:
                x += lx
                y += ly
            px, py = x - vx, y - vy
            sx, sy, sw, sh = ox + px * k, oy + py * k, w * k, h * k
            # Visible part: the box clipped to the viewport and to its frames' clip.
            left, top, right, bottom = max(px, 0.0), max(py, 0.0), min(px + w, vw), min(py + h, vh)
            clip = placement.clip
            if clip is not None:
                cx, cy = clip.x - vx, clip.y - vy
                if placement.clip_fixed:
                    cx += lx
                    cy += ly
                left, top = max(left, cx), max(top, cy)
                right, bottom = min(right, cx + clip.width), min(bottom, cy + clip.height)
            visible = w > 0 and h > 0 and right > left and bottom > top
            fully = visible and right - left >= w - 0.5 and bottom - top >= h - 0.5
            (bx, bx_s), (by, by_s), (bw, bw_s), (bh, bh_s) = num[x], num[y], num[w], num[h]
            border_box = {"x": bx, "y": by, "width": bw, "height": bh}
            insets = placement.insets
            if insets is None:                   # no border or padding: content box = border box
                bounds = {"space": "document", **border_box, "borderBox": border_box}
                cx_s, cy_s, cw_s, ch_s = bx_s, by_s, bw_s, bh_s
            else:
                inner = content_box(x, y, w, h, insets)
                (ix, cx_s), (iy, cy_s), (iw, cw_s), (ih, ch_s) = (num[v] for v in inner)
                bounds = {"space": "document", "x": ix, "y": iy, "width": iw, "height": ih,
                          "borderBox": border_box}
            (vpx, vpx_s), (vpy, vpy_s) = num[px], num[py]
            (ssx, ssx_s), (ssy, ssy_s), (ssw, ssw_s), (ssh, ssh_s) = num[sx], num[sy], num[sw], num[sh]
            center_x, center_y = round(sx + sw / 2), round(sy + sh / 2)
            node = {**record, "bounds": bounds,
                    "viewport": {"space": "viewport", "borderBox": {
                        "x": vpx, "y": vpy, "width": bw, "height": bh}},
                    "screen": {"space": "screen", "borderBox": {
                        "x": ssx, "y": ssy, "width": ssw, "height": ssh},
                        "center": {"x": center_x, "y": center_y}},
                    "visible": visible, "fullyVisible": fully}
            encoded = prefix + (template % (
                cx_s, cy_s, cw_s, ch_s, bx_s, by_s, bw_s, bh_s, vpx_s, vpy_s, bw_s, bh_s,
                ssx_s, ssy_s, ssw_s, ssh_s, center_x, center_y, _JSON_BOOL[visible],
                _JSON_BOOL[fully])).encode()
        entries[node_id] = (record, placement, node, encoded, prefix)
        append(node)
        append_json(encoded)
    release_later(old)          # the replaced nodes: freed after the answer
    cache.entries = entries
    return result, result_json


def viewport_json(metrics: dict, view: View) -> dict[str, Any]:
    """The layout's "viewport" member: Page.getLayoutMetrics' CSS boxes and the view's scales."""
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    content = metrics.get("cssContentSize", {})
    return {
        "visualViewport": {"space": "document", "pageX": visual.get("pageX", 0),
                           "pageY": visual.get("pageY", 0),
                           "offsetX": visual.get("offsetX", 0), "offsetY": visual.get("offsetY", 0),
                           "clientWidth": visual.get("clientWidth", 0),
                           "clientHeight": visual.get("clientHeight", 0),
                           "scale": visual.get("scale", 1), "zoom": view.zoom},
        "layoutViewport": {"space": "document", "pageX": layout.get("pageX", 0),
                           "pageY": layout.get("pageY", 0),
                           "clientWidth": layout.get("clientWidth", 0),
                           "clientHeight": layout.get("clientHeight", 0)},
        "contentSize": {"space": "document", "x": content.get("x", 0), "y": content.get("y", 0),
                        "width": content.get("width", 0), "height": content.get("height", 0)},
        "devicePixelRatio": view.device_pixel_ratio,
        "deviceScaleFactor": round(view.device_pixel_ratio / view.zoom, 4),
        "screenOrigin": {"space": "screen", "x": round(view.origin_x, 2), "y": round(view.origin_y, 2)},
    }
