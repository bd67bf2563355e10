"""Layout nodes for one view: each record with its bounds in the three spaces, and its JSON.

This is the hot loop of every request after a scroll, a full capture or a patch that moved part
of the page (a mid-page insert moves half of it). A node whose record and placement equal those
of the tab's last answer for the same view keeps its JSON. Every other node gets its geometry by
plain float arithmetic (the maths of spaces.View) and its JSON from one template: the same
bytes ``json.dumps`` writes (the tests re-encode decoded nodes and compare), at about half the
cost of building and dumping nested dicts. No dict is built: the answer is the JSON
(encoding.NodeList decodes it for in-process readers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from httpapi.json_types import JSONObject

from ..records.axtree import Record
from .encoding import DecodedNodes, dumps as json_bytes
from ..geometry.click_point import click_point
from ..geometry.spaces import Placement, View, content_box
from ..runtime.memory import release_later
from ...cdp.protocol.cdp_commands import PageGetLayoutMetricsResult


@dataclass
class NodeCache:
    """One query option's last answer: handed on from capture to capture of a tab."""

    view: View | None = None
    # nodeId -> (record, placement, node JSON, record JSON without its closing brace, hittable)
    entries: dict[str, tuple[Record, Placement | None, bytes, bytes, bool | None]] = field(
        default_factory=dict)
    # The answers' nodes decoded for in-process readers, by their JSON (encoding.NodeList).
    decoded: DecodedNodes = field(default_factory=DecodedNodes)


class _Numbers(dict):
    """value -> the JSON text of round(value, 2), each distinct value worked out once: a page's
    boxes share a few thousand distinct coordinates (measured: 1,294 of 17,340 snapshot values),
    and a dict hit costs a fraction of round() and repr(). Zeros are never stored: 0.0 == -0.0,
    yet they round (and encode) differently."""

    def __missing__(self, value: float) -> str:
        text = repr(round(value, 2))              # repr: how json.dumps writes a float
        if value:
            self[value] = text
        return text


# The geometry members of a node, after its record's (json.dumps of the node as a dict writes
# exactly this). Placeholders: bounds' space, then its content box x/y/w/h and border box x/y/w/h
# in that space, viewport x/y (its
# w/h repeat the border box's), screen x/y/w/h, centre x/y, visible, fullyVisible.
_GEOMETRY_JSON = (
    ',"bounds":{"space":"%s","x":%s,"y":%s,"width":%s,"height":%s,'
    '"borderBox":{"x":%s,"y":%s,"width":%s,"height":%s}},'
    '"viewport":{"space":"viewport","borderBox":{"x":%s,"y":%s,"width":%s,"height":%s}},'
    '"screen":{"space":"screen","borderBox":{"x":%s,"y":%s,"width":%s,"height":%s},'
    '"center":{"x":%d,"y":%d},"clickPoint":%s},"visible":%s,"fullyVisible":%s,"hittable":%s}')
# An unrendered node has no "bounds" member at all (the reference schema's consumers test
# `"bounds" in node`); our own geometry members stay, null.
_NO_GEOMETRY_JSON = b"," + json_bytes({"viewport": None, "screen": None,
                                        "visible": False, "fullyVisible": False,
                                        "hittable": None})[1:]
BOUNDS_SPACES = ("document", "viewport", "screen")
# Record members the reference schema types as a string or an integer: left out when null.
_OMITTED_WHEN_NULL = frozenset({"parentId", "backendDOMNodeId"})


def record_bytes(record: Record) -> bytes:
    """A record's JSON: its members, less those the reference schema wants absent, not null."""
    if record["parentId"] is None or record["backendDOMNodeId"] is None:
        return json_bytes({key: value for key, value in record.items()
                           if value is not None or key not in _OMITTED_WHEN_NULL})
    return json_bytes(record)
_JSON_BOOL = {True: "true", False: "false"}
_JSON_HIT = {True: "true", False: "false", None: "null"}


def nodes(records: list[Record], placements: list[Placement | None], view: View,
          cache: NodeCache,
          bounds_space: str = "document", hits: dict[str, bool | None] | None = None) -> list[bytes]:
    """The JSON of each record with its bounds for ``view``; updates ``cache``. ``bounds_space``:
    the space of each node's "bounds" (one of BOUNDS_SPACES; the "viewport" and "screen" members are always theirs).
    ``hits``: nodeId -> "hittable" of the nodes hit-tested for this view (hits.py)."""
    if cache.view != view:
        cache.view, cache.entries = view, {}
    old, entries = cache.entries, {}
    lx, ly, vx, vy = view.layout_x, view.layout_y, view.visual_x, view.visual_y
    vw, vh = view.visual_width, view.visual_height
    k = view.pinch_scale * view.device_pixel_ratio
    ox, oy = view.origin_x, view.origin_y
    result_json: list[bytes] = []
    append_json, num, template = result_json.append, _Numbers(), _GEOMETRY_JSON
    for record, placement in zip(records, placements):
        node_id = record["nodeId"]
        hittable = hits.get(node_id) if hits else None
        hit = old.get(node_id)
        same_record = hit is not None and (hit[0] is record or hit[0] == record)
        if hit is not None and same_record and (hit[1] is placement or hit[1] == placement) and hit[4] is hittable:
            if hit[0] is not record or hit[1] is not placement:
                # Equal, not the same: keep these, so the next answer compares identities
                # (comparing equal dicts costs microseconds, and patches make such records).
                hit = (record, placement, hit[2], hit[3], hittable)
            entries[node_id] = hit
            append_json(hit[2])
            continue
        # A node's JSON is its record's members, then its geometry's: a record that only moved
        # keeps the JSON of its members.
        prefix = hit[3] if hit is not None and same_record else record_bytes(record)[:-1]
        if placement is None:
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
            bx_s, by_s, bw_s, bh_s = num[x], num[y], num[w], num[h]
            insets = placement.insets
            if insets is None:                   # no border or padding: content box = border box
                cx_s, cy_s, cw_s, ch_s = bx_s, by_s, bw_s, bh_s
            else:
                cx_s, cy_s, cw_s, ch_s = (num[v] for v in content_box(x, y, w, h, insets))
            vpx_s, vpy_s = num[px], num[py]
            ssx_s, ssy_s, ssw_s, ssh_s = num[sx], num[sy], num[sw], num[sh]
            center_x, center_y = round(sx + sw / 2), round(sy + sh / 2)
            point = click_point(placement, view) if visible else None
            point_json = "null" if point is None else '{"x":%d,"y":%d}' % point
            if bounds_space != "document":
                cx_s, cy_s, cw_s, ch_s, bx_s, by_s = (num[v] for v in _moved_bounds(
                    bounds_space, x, y, w, h, insets, view, k, px, py))
                if bounds_space == "screen":
                    bw_s, bh_s = ssw_s, ssh_s
            encoded = prefix + (template % (
                bounds_space, cx_s, cy_s, cw_s, ch_s, bx_s, by_s, bw_s, bh_s, vpx_s, vpy_s,
                num[w], num[h],
                ssx_s, ssy_s, ssw_s, ssh_s, center_x, center_y, point_json, _JSON_BOOL[visible],
                _JSON_BOOL[fully], _JSON_HIT[hittable])).encode()
        entries[node_id] = (record, placement, encoded, prefix, hittable)
        append_json(encoded)
    release_later(old)          # the replaced nodes: freed after the answer
    cache.entries = entries
    return result_json


def _moved_bounds(space: str, x: float, y: float, w: float, h: float,
                  insets: tuple[float, float, float, float] | None, view: View,
                  k: float, px: float, py: float) -> tuple[float, ...]:
    """Content box x/y/width/height and border box x/y of a node's "bounds" in ``space``
    ("viewport": CSS px from the visual viewport's top-left, as the reference implementation's
    DOM.getBoxModel gave them; "screen": desktop pixels, as the node's "screen" box)."""
    cx, cy, cw, ch = (x, y, w, h) if insets is None else content_box(x, y, w, h, insets)
    dx, dy = px - x, py - y                    # document -> viewport
    if space == "viewport":
        values = (cx + dx, cy + dy, cw, ch, px, py)
    else:
        ox, oy = view.origin_x, view.origin_y
        values = (ox + (cx + dx) * k, oy + (cy + dy) * k, cw * k, ch * k, ox + px * k, oy + py * k)
    return values


def viewport_json(metrics: PageGetLayoutMetricsResult, view: View) -> JSONObject:
    """The layout's "viewport" member: Page.getLayoutMetrics' CSS boxes and the view's scales."""
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    content = metrics.get("cssContentSize", {})
    # x/y/width/height(/scale): the reference schema's names (scroll offset and visible size,
    # CSS px); pageX/clientWidth and the rest: CDP's, as before.
    return {
        "visualViewport": {"x": visual.get("pageX", 0), "y": visual.get("pageY", 0),
                           "width": visual.get("clientWidth", 0),
                           "height": visual.get("clientHeight", 0),
                           "space": "document", "pageX": visual.get("pageX", 0),
                           "pageY": visual.get("pageY", 0),
                           "offsetX": visual.get("offsetX", 0), "offsetY": visual.get("offsetY", 0),
                           "clientWidth": visual.get("clientWidth", 0),
                           "clientHeight": visual.get("clientHeight", 0),
                           "scale": visual.get("scale", 1), "zoom": view.zoom},
        "layoutViewport": {"x": layout.get("pageX", 0), "y": layout.get("pageY", 0),
                           "width": layout.get("clientWidth", 0),
                           "height": layout.get("clientHeight", 0),
                           "space": "document", "pageX": layout.get("pageX", 0),
                           "pageY": layout.get("pageY", 0),
                           "clientWidth": layout.get("clientWidth", 0),
                           "clientHeight": layout.get("clientHeight", 0)},
        "contentSize": {"space": "document", "x": content.get("x", 0), "y": content.get("y", 0),
                        "width": content.get("width", 0), "height": content.get("height", 0)},
        "devicePixelRatio": view.device_pixel_ratio,
        "deviceScaleFactor": round(view.device_pixel_ratio / view.zoom, 4),
        "screenOrigin": {"space": "screen", "x": round(view.origin_x, 2), "y": round(view.origin_y, 2)},
    }
