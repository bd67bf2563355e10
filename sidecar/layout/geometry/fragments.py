"""Line fragments of inline content broken over lines: where a wrapped link really is.

A link that wraps has a bounding box whose centre is on neither line. The DOM snapshot's
``textBoxes`` give each text node's boxes, one per line it is broken into; an inline element's
fragments are those of the text inside it (through nested inline elements). Only nodes whose
fragments lie on more than one line are kept: for the others, the box is the fragment.
"""

from __future__ import annotations

from .spaces import Rect
from ...cdp.protocol.cdp_types import DOMSnapshotDocumentSnapshot


def line_fragments(raw: DOMSnapshotDocumentSnapshot, backend_ids: list[int], parents: list[int],
                   inline: set[int], scale: float) -> dict[int, tuple[Rect, ...]]:
    """backendNodeId -> its fragments (CSS px, the document's own coordinates), for text nodes
    and inline elements (``inline``: their node indices) spanning more than one line."""
    layout = raw.get("layout", {})
    boxes = raw.get("textBoxes", {})
    node_of_layout: list[int] = layout.get("nodeIndex", [])
    gathered: dict[int, list[Rect]] = {}
    for layout_index, bounds in zip(boxes.get("layoutIndex", []), boxes.get("bounds", [])):
        node = node_of_layout[layout_index]
        rect = Rect(0.0 + bounds[0] * scale, 0.0 + bounds[1] * scale, bounds[2] * scale, bounds[3] * scale)
        while node >= 0:
            gathered.setdefault(node, []).append(rect)
            node = parents[node] if node < len(parents) else -1
            if node not in inline:
                break
    result: dict[int, tuple[Rect, ...]] = {}
    for node, rects in gathered.items():
        if len(rects) > 1 and len({round(r.y) for r in rects}) > 1:
            result[backend_ids[node]] = tuple(rects)
    return result
