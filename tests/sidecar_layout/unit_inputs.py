"""Inputs shaped like Chromium's replies, shared by the layout unit tests (no browser)."""

from __future__ import annotations

from sidecar.layout.geometry.spaces import View
from sidecar.layout.snapshot.dom_boxes import Snapshot


def _view(**overrides) -> View:
    values = dict(layout_x=0.0, layout_y=0.0, visual_x=0.0, visual_y=0.0, visual_width=800.0,
                  visual_height=600.0, pinch_scale=1.0, zoom=1.0, device_pixel_ratio=1.0,
                  origin_x=0.0, origin_y=0.0)
    values.update(overrides)
    return View(**values)


def _ax(node_id, role, parent=None, children=(), name="", ignored=False, backend=None, props=()):
    node = {"nodeId": node_id, "role": {"type": "role", "value": role}, "childIds": list(children),
            "ignored": ignored, "name": {"type": "computedString", "value": name},
            "properties": [{"name": k, "value": {"type": "x", "value": v}} for k, v in props]}
    if parent is not None:
        node["parentId"] = parent
    if backend is not None:
        node["backendDOMNodeId"] = backend
    return node


TREE = [
    _ax("1", "RootWebArea", children=["2", "5"], backend=1),
    _ax("2", "generic", "1", ["3", "4"], backend=2),
    _ax("3", "button", "2", ["6"], name="OK", backend=3,
        props=[("focusable", True), ("pressed", "mixed"), ("labelledby", [1]), ("level", 2)]),
    _ax("4", "none", "2", ignored=True, backend=4),
    _ax("5", "link", "1", name="Home", backend=5),
    _ax("6", "InlineTextBox", "3"),
]


def _snapshot(dpr=1.0):
    strings = ["F0", "F1", "HTML", "IFRAME", "BUTTON", "static", "fixed", "2px", "3px", "0px",
               "http://a/", "http://a/f"]
    # Document 0: html(1) > iframe(2, border 2px, padding 3px, contentDocument 1), fixed button(3)
    # Document 1 (scrolled by 10): html(11) > button(12) at (20, 30) in its own document.
    scale = dpr
    return Snapshot({"strings": strings, "documents": [
        {"frameId": 0, "documentURL": 10, "scrollOffsetX": 0, "scrollOffsetY": 100 * scale,
         "nodes": {"backendNodeId": [1, 2, 3], "parentIndex": [-1, 0, 0], "nodeName": [2, 3, 4],
                   "contentDocumentIndex": {"index": [1], "value": [1]}},
         "layout": {"nodeIndex": [0, 1, 2],
                    "bounds": [[0, 0, 800 * scale, 2000 * scale], [100 * scale, 200 * scale, 310 * scale, 160 * scale],
                               [10 * scale, 110 * scale, 40 * scale, 20 * scale]],
                    "styles": [[5, 9, 9, 9, 9], [5, 7, 7, 8, 8], [6, 9, 9, 9, 9]]}},
        {"frameId": 1, "documentURL": 11, "scrollOffsetX": 0, "scrollOffsetY": 10 * scale,
         "nodes": {"backendNodeId": [11, 12], "parentIndex": [-1, 0], "nodeName": [2, 4]},
         "layout": {"nodeIndex": [0, 1], "bounds": [[0, 0, 300 * scale, 500 * scale], [20 * scale, 30 * scale, 50 * scale, 20 * scale]],
                    "styles": [[5, 9, 9, 9, 9], [5, 9, 9, 9, 9]]}},
    ]}, dpr)


def _boxed_snapshot(zoom: str = "1") -> Snapshot:
    # html(1) > div(2: zoom) > button(3: border 2px, padding 3px 5px) > text(4)
    strings = ["F", "HTML", "DIV", "BUTTON", "#text", "static", "0px", "2px", "3px", "5px", "1", zoom]
    none = [5, 6, 6, 6, 6, 6, 6, 6, 6, 10]
    boxed = [5, 7, 7, 9, 8, 7, 7, 9, 8, 10]       # STYLES order: left/top border, padding, ...
    return Snapshot({"strings": strings, "documents": [{
        "frameId": 0, "nodes": {"backendNodeId": [1, 2, 3, 4], "parentIndex": [-1, 0, 1, 2],
                                "nodeName": [1, 2, 3, 4], "nodeType": [1, 1, 1, 3]},
        "layout": {"nodeIndex": [0, 1, 2, 3],
                   "bounds": [[0, 0, 800, 600], [10, 10, 200, 100], [20, 20, 100, 40], [27, 25, 30, 16]],
                   "styles": [none, none[:9] + [11], boxed, boxed]}}]})
