"""DOMSnapshot.captureSnapshot, read into border boxes by backendNodeId, and frames placed.

One snapshot gives the border box of every rendered node of every document in the renderer
(the page and its same-process iframes) in that document's own CSS coordinates, in one call. This
module joins those boxes on backendNodeId and works out, for each document, the shift that moves
its coordinates into the tab's top-level document space: the owning iframe's content box (border
box + border + padding), minus the iframe document's own scroll offset, recursively.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..geometry import clipping
from ..geometry.fragments import line_fragments
from .documents import TOP_LEVEL, Document, DocumentPlacement, place, visible_clip
from ..geometry.spaces import Placement, Rect
from .restyle import RENDER_STYLES, RenderState
from ...cdp.protocol.cdp_commands import DOMSnapshotCaptureSnapshotParams, DOMSnapshotCaptureSnapshotResult
from ...cdp.protocol.cdp_types import DOMSnapshotDocumentSnapshot, DOMSnapshotLayoutTreeSnapshot

__all__ = ["CAPTURE_PARAMS", "STYLES", "TOP_LEVEL", "Document", "DocumentPlacement", "Snapshot"]

# Styles read for every laid-out node: whether it is fixed/sticky, an iframe's content origin
# (indices 1-4), and with the rest, every element's content box (border box minus border and
# padding, as the reference API's bounds.x/y/width/height). Values come as CSS px strings,
# unzoomed: under the CSS zoom property (index 9, the element's own factor) they are scaled by
# the product of its own and its ancestors' zoom. Then those the accessibility tree depends on
# (restyle.py: what a page-wide change re-rendered).
_GEOMETRY_STYLES = ("position", "border-left-width", "border-top-width", "padding-left",
                    "padding-top", "border-right-width", "border-bottom-width", "padding-right",
                    "padding-bottom", "zoom",
                    # What clips content and what anchors position:fixed content (clipping.py).
                    "transform", "filter", "perspective", "backdrop-filter", "will-change",
                    "contain", "clip-path", "clip")
STYLES = _GEOMETRY_STYLES + RENDER_STYLES
_CLIP_STYLES = slice(10, 18)
_DISPLAY = len(_GEOMETRY_STYLES) + RENDER_STYLES.index("display")
_OVERFLOW = len(_GEOMETRY_STYLES) + RENDER_STYLES.index("overflow")
_ELEMENT_NODE = 1
_FRAME_NAMES = ("IFRAME", "FRAME", "FENCEDFRAME")
CAPTURE_PARAMS: DOMSnapshotCaptureSnapshotParams = {"computedStyles": list(STYLES), "includeDOMRects": False,
                                  "includePaintOrder": False}


class Snapshot:
    """A parsed captureSnapshot reply of one session (a page, or an out-of-process iframe)."""

    def __init__(self, reply: DOMSnapshotCaptureSnapshotResult, device_pixel_ratio: float = 1.0) -> None:
        # Layout bounds and scroll offsets in a snapshot are device pixels (CSS px times page
        # zoom times device scale factor); computed styles stay CSS px.
        self.scale = 1.0 / (device_pixel_ratio or 1.0)
        self._render_state: RenderState | None = None
        self.strings: list[str] = reply.get("strings", [])
        self._positioned = self._indices(("fixed", "sticky", "absolute", "relative"))
        # Values that clip nothing and make no containing block (clipping.py).
        self._plain = self._indices(("none", "auto", "visible", "normal", ""))
        self._inline = self._indices(("inline",))
        self._unclipped = self._indices(("visible", "visible visible", ""))
        self._root_names = self._indices(("HTML", "BODY"))
        self._unzoomed = self._indices(("1", "normal", ""))
        self._frame_names = self._indices(_FRAME_NAMES)
        self._raw_documents: list[DOMSnapshotDocumentSnapshot] = reply.get("documents", [])
        self._documents: list[Document] | None = None
        self._owner_document: dict[int, int] = {}
        self._text_boxes_of: dict[int, dict[int, list[Rect]]] = {}

    @property
    def documents(self) -> list[Document]:
        """The documents with their boxes, read on first use: a patch compares the rendering
        (render_state, from the raw reply) first, and reads the boxes while Chromium answers
        the reads that comparison asked for."""
        if self._documents is None:
            self._documents = [self._read_document(i, d) for i, d in enumerate(self._raw_documents)]
            for doc in self._documents:
                for backend_id in doc.boxes:
                    self._owner_document[backend_id] = doc.index
        return self._documents

    @property
    def owner_document(self) -> dict[int, int]:
        """backendNodeId -> index of the document holding it."""
        self.read_boxes()
        return self._owner_document

    def ancestry(self) -> list[tuple[list[int], list[int], int | None]]:
        """Per document: its backend ids, parent indices and owner element (ancestry.Ancestry)."""
        owner_of = {child: owner for doc in self.documents for owner, child in doc.child_documents.items()}
        return [(doc.raw.get("nodes", {}).get("backendNodeId", []), doc.raw.get("nodes", {}).get("parentIndex", []),
                 owner_of.get(doc.index)) for doc in self.documents]

    def read_boxes(self) -> list[Document]:
        """The documents with their boxes, read now if not yet (``documents``)."""
        return self.documents

    def render_state(self) -> RenderState | None:
        """The rendering of a snapshot of one document (restyle.py), else None. One object per
        snapshot: what it works out once (its signatures) serves the next comparison too."""
        if self._render_state is None and len(self._raw_documents) == 1:
            raw = self._raw_documents[0]
            self._render_state = RenderState(self.strings, raw.get("nodes", {}), raw.get("layout", {}),
                                             len(_GEOMETRY_STYLES))
        return self._render_state

    def _indices(self, values: tuple[str, ...]) -> frozenset[int]:
        """The string-table indices of ``values`` (a value may appear once per document)."""
        return frozenset(i for i, text in enumerate(self.strings) if text in values)

    def _string(self, index: int) -> str:
        return self.strings[index] if 0 <= index < len(self.strings) else ""

    def _read_document(self, index: int, data: DOMSnapshotDocumentSnapshot) -> Document:
        doc = Document(index=index, frame_id=self._string(data.get("frameId", -1)),
                       url=self._string(data.get("documentURL", -1)),
                       scroll_x=float(data.get("scrollOffsetX", 0.0)) * self.scale,
                       scroll_y=float(data.get("scrollOffsetY", 0.0)) * self.scale, raw=data)
        nodes = data.get("nodes", {})
        backend_ids: list[int] = nodes.get("backendNodeId", [])
        parents: list[int] = nodes.get("parentIndex", [])
        layout = data.get("layout", {})
        kinds: list[int] = nodes.get("nodeType", [])
        own_position: dict[int, str] = {}
        # Styles are indices into the string table: compare indices, look up strings only for
        # the few values that matter (fixed/sticky positions, a zoom other than 1).
        positioned, unzoomed = self._positioned, self._unzoomed
        # Most elements share a few border/padding combinations (mostly none): parse each once.
        inset_of: dict[tuple[int, ...], tuple[float, float, float, float] | None] = {}
        own_zoom: dict[int, float] = {}              # node index -> CSS zoom other than 1
        scale = self.scale
        plain, inline_display, unclipped = self._plain, self._inline, self._unclipped
        inline_nodes: set[int] = set()               # display: inline (fragments.py)
        clipping_nodes: list[tuple[int, list[int]]] = []   # those with clip styles to read
        for node_index, bounds, styles in zip(layout.get("nodeIndex", []), layout.get("bounds", []),
                                              layout.get("styles", [])):
            backend_id = backend_ids[node_index]
            if backend_id not in doc.boxes:          # first box of a node split over lines
                # Rect.scaled's arithmetic inline (0.0 + keeps -0.0 out, as it does): one Rect.
                doc.boxes[backend_id] = Rect(0.0 + bounds[0] * scale, 0.0 + bounds[1] * scale,
                                             bounds[2] * scale, bounds[3] * scale)
                if len(styles) >= 9 and (node_index >= len(kinds) or kinds[node_index] == _ELEMENT_NODE):
                    key = tuple(styles[1:9])
                    if key not in inset_of:
                        inset_of[key] = self._insets(key)
                    insets = inset_of[key]
                    if insets is not None:
                        doc.insets[backend_id] = insets
                    if len(styles) >= 10 and styles[9] not in unzoomed:
                        own_zoom[node_index] = _number(self._string(styles[9]))
            # A text node reports its parent's style: only elements have their own.
            if node_index < len(kinds) and kinds[node_index] != _ELEMENT_NODE:
                continue
            if styles and styles[0] in positioned:
                position = self._string(styles[0])
                own_position[node_index] = position
                if position == "sticky":
                    doc.has_sticky = True
            if len(styles) > _OVERFLOW:
                if styles[_DISPLAY] in inline_display:
                    inline_nodes.add(node_index)
                if styles[_OVERFLOW] not in unclipped or any(v not in plain for v in styles[_CLIP_STYLES]):
                    clipping_nodes.append((node_index, styles))
        self._read_clipping(doc, own_position, clipping_nodes, backend_ids, parents)
        if inline_nodes or doc.raw.get("textBoxes"):
            doc.fragments = line_fragments(data, backend_ids, parents, inline_nodes, scale)
        if own_zoom:
            self._apply_zoom(doc, own_zoom, backend_ids, parents)
        content_docs = nodes.get("contentDocumentIndex", {})
        for node_index, doc_index in zip(content_docs.get("index", []), content_docs.get("value", [])):
            doc.child_documents[backend_ids[node_index]] = doc_index
        self._read_content_origins(doc, backend_ids, layout)
        return doc

    def _read_clipping(self, doc: Document, own_position: dict[int, str],
                       clipping_nodes: list[tuple[int, list[int]]], backend_ids: list[int],
                       parents: list[int]) -> None:
        """Each node's clip and whether it is anchored to the viewport (clipping.py)."""
        names: list[int] = doc.raw.get("nodes", {}).get("nodeName", [])
        own: dict[int, clipping.OwnStyle] = {
            index: clipping.OwnStyle(position, None, None, False) for index, position in own_position.items()}
        text = self._string
        for node_index, styles in clipping_nodes:
            box = doc.boxes.get(backend_ids[node_index])
            if box is None:
                continue
            top, right, bottom, left = (_px(text(styles[i])) for i in (2, 5, 6, 1))
            borders = (top, right, bottom, left)
            transform, filter_, perspective, backdrop, will_change, contain, clip_path, clip = (
                text(v) for v in styles[_CLIP_STYLES])
            position = own_position.get(node_index, clipping.STATIC)
            self_region = None
            if clip_path not in ("none", ""):
                self_region = box
            if clip not in ("auto", "") and position in (clipping.ABSOLUTE, clipping.FIXED):
                self_region = clipping.intersect(self_region, clipping.clip_rect(clip, box))
            content_region = None
            if node_index >= len(names) or names[node_index] not in self._root_names:
                content_region = clipping.overflow_region(text(styles[_OVERFLOW]), box, borders)
            if clipping.contains_paint(contain):
                content_region = clipping.intersect(content_region, clipping.padding_box(box, borders))
            own[node_index] = clipping.OwnStyle(
                position, self_region, content_region,
                clipping.makes_containing_block(transform, filter_, perspective, backdrop,
                                                will_change, contain))
        if not own:
            return
        found = clipping.propagate(parents, own)
        doc.clips = {backend_ids[i]: rect for i, rect in found.clips.items()}
        doc.fixed = {backend_ids[i] for i in found.anchored}

    def _insets(self, styles: tuple[int, ...]) -> tuple[float, float, float, float] | None:
        """(top, right, bottom, left) border + padding from STYLES[1:9]; None when all zero."""
        bl, bt, pl, pt, br, bb, pr, pb = (_px(self._string(s)) for s in styles)
        insets = (bt + pt, br + pr, bb + pb, bl + pl)
        return insets if any(insets) else None

    @staticmethod
    def _apply_zoom(doc: Document, own_zoom: dict[int, float], backend_ids: list[int],
                    parents: list[int]) -> None:
        """Scale insets by each element's effective zoom (its own times its ancestors')."""
        effective = [1.0] * len(backend_ids)
        for node_index, backend_id in enumerate(backend_ids):      # parents come first
            parent = parents[node_index] if node_index < len(parents) else -1
            factor = (effective[parent] if parent >= 0 else 1.0) * own_zoom.get(node_index, 1.0)
            effective[node_index] = factor
            insets = doc.insets.get(backend_id) if factor != 1.0 else None
            if insets is not None:
                top, right, bottom, left = insets
                doc.insets[backend_id] = (top * factor, right * factor, bottom * factor, left * factor)

    def _read_content_origins(self, doc: Document, backend_ids: list[int],
                              layout: DOMSnapshotLayoutTreeSnapshot) -> None:
        """Content-box origin of every iframe/frame element (where its document is drawn)."""
        if not self._frame_names:
            return
        names = doc.raw.get("nodes", {}).get("nodeName", [])
        frame_names = self._frame_names
        for node_index, bounds, styles in zip(layout.get("nodeIndex", []), layout.get("bounds", []),
                                              layout.get("styles", [])):
            if names[node_index] not in frame_names:
                continue
            border_left, border_top, pad_left, pad_top = (_px(self._string(s)) for s in styles[1:5])
            doc.content_origin[backend_ids[node_index]] = (
                bounds[0] * self.scale + border_left + pad_left,
                bounds[1] * self.scale + border_top + pad_top)

    def placements(self, root: DocumentPlacement) -> dict[int, DocumentPlacement]:
        """Every document's placement, given the placement of document 0. A document that
        cannot be placed (nor any document inside it) is left out: "not placed"."""
        result = {0: root} if self.documents else {}
        pending = [0] if self.documents else []
        seen = set(pending)
        while pending:
            parent = self.documents[pending.pop()]
            for owner_id, child_index in parent.child_documents.items():
                if child_index in seen or child_index >= len(self.documents):
                    continue
                seen.add(child_index)
                child = self.documents[child_index]
                placed = self.child_placement(parent, result[parent.index], owner_id, child.scroll_x,
                                              child.scroll_y)
                if placed is not None:
                    result[child_index] = placed
                    pending.append(child_index)
        return result

    def child_placement(self, parent: Document, placed: DocumentPlacement, owner_id: int,
                        scroll_x: float, scroll_y: float) -> DocumentPlacement | None:
        """Placement of the document drawn in iframe ``owner_id`` of ``parent``."""
        origin = parent.content_origin.get(owner_id)
        box = parent.boxes.get(owner_id)
        if origin is None or box is None:
            return None
        # The clip is approximate on the right/bottom edges (it keeps the far border/padding).
        content = Rect(origin[0], origin[1], box.right - origin[0], box.bottom - origin[1])
        owner = place(parent, placed, owner_id, content)
        return DocumentPlacement(dx=owner.rect.x - scroll_x, dy=owner.rect.y - scroll_y,
                                 fixed=owner.fixed, clip=visible_clip(owner), clip_fixed=owner.fixed)

    def text_box_placements(self, backend_id: int, placements: dict[int, DocumentPlacement],
                            ) -> list[Placement]:
        """A text node's line boxes (the snapshot's textBoxes, one per line it is broken into)
        in the tab's space, in order; [] when it has none or its document is not placed."""
        doc_index = self.owner_document.get(backend_id)
        placed = placements.get(doc_index) if doc_index is not None else None
        if doc_index is None or placed is None:
            return []
        doc = self.documents[doc_index]
        return [place(doc, placed, backend_id, rect) for rect in self._text_boxes(doc).get(backend_id, [])]

    def _text_boxes(self, doc: Document) -> dict[int, list[Rect]]:
        """backendNodeId -> its text boxes, read from the raw reply on first use (only reads
        that ask for inline text boxes need them)."""
        cached = self._text_boxes_of.get(doc.index)
        if cached is not None:
            return cached
        layout = doc.raw.get("layout", {})
        node_of_layout: list[int] = layout.get("nodeIndex", [])
        backend_ids: list[int] = doc.raw.get("nodes", {}).get("backendNodeId", [])
        boxes = doc.raw.get("textBoxes", {})       # a member of the document, beside "layout"
        found: dict[int, list[Rect]] = {}
        scale = self.scale
        for layout_index, bounds in zip(boxes.get("layoutIndex", []), boxes.get("bounds", [])):
            backend_id = backend_ids[node_of_layout[layout_index]]
            found.setdefault(backend_id, []).append(Rect(0.0 + bounds[0] * scale, 0.0 + bounds[1] * scale,
                                                         bounds[2] * scale, bounds[3] * scale))
        self._text_boxes_of[doc.index] = found
        return found

    def placement_of(self, backend_id: int, placements: dict[int, DocumentPlacement]) -> Placement | None:
        return self.placements_of((backend_id,), placements)[0]

    def placements_of(self, backend_ids: Iterable[int | None],
                      placements: dict[int, DocumentPlacement]) -> list[Placement | None]:
        """Each node's placement, in order (None: no box, or its document is not placed). One
        call for thousands of nodes (a capture, a patch): the look-ups are bound once."""
        owner_document, documents = self.owner_document, self.documents
        result: list[Placement | None] = []
        append = result.append
        for backend_id in backend_ids:
            doc_index = owner_document.get(backend_id) if backend_id is not None else None
            placed = placements.get(doc_index) if doc_index is not None else None
            if backend_id is None or doc_index is None or placed is None:
                append(None)
                continue
            doc = documents[doc_index]
            append(place(doc, placed, backend_id, doc.boxes[backend_id], doc.insets.get(backend_id),
                         doc.fragments.get(backend_id) if doc.fragments else None))
        return result


def _number(value: str) -> float:
    """A zoom value: "1.5" or "150%"; 1 when unreadable."""
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return 1.0


def _px(value: str) -> float:
    try:
        return float(value[:-2]) if value.endswith("px") else float(value or 0)
    except ValueError:
        return 0.0
