"""A tab's capture (what every reader makes) and how its nodes are placed from DOM snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field

from sidecar.errors import PageChanging

from ..records.axtree import Record
from ..geometry.spaces import Placement, View
from ..snapshot.ancestry import Ancestry
from ..runtime.memory import gc_paused, release_later
from ..output.options import LayoutOptions
from ..output.shapes import Layout
from ..probing.probe import ProbeResult
from ..probing.change_signal import Probed, layout_scroll, same_scroll
from ..output.render import NodeCache
from ..snapshot.restyle import RenderState
from ..runtime.seams import ChildSession, Page, Session
from ..snapshot.dom_boxes import CAPTURE_PARAMS, TOP_LEVEL, DocumentPlacement, Snapshot
from ...cdp.protocol.cdp_commands import PageGetLayoutMetricsResult


class PageChanged(PageChanging):
    """The document changed while it was being captured."""


@dataclass
class Capture:
    """Everything about a tab that does not depend on scroll: reused while the signal holds."""

    signal: tuple
    records: list[Record]
    placements: list[Placement | None]
    source: str                                  # "accessibility" or "dom"
    sticky: bool                                 # position:sticky content moves with scroll
    sessions: list[str]                          # per record: the target id whose DOM holds it
    structure: tuple | None = ()                        # the signal without scroll counts
    filtered: dict[tuple, tuple[list[Record], list[Placement | None]]] = field(default_factory=dict)
    # Per query options: the last answer and the view it was built for. Returning the very same
    # dict while nothing moved lets the route reuse its encoded bytes (sidecar.layout.output.encoding).
    rendered: dict[LayoutOptions, tuple[View, Layout]] = field(default_factory=dict)
    # Whether the tab was the one shown in its window at the last probe (the tab entry's
    # "visible"; outside the layout so a tab switch does not re-encode it).
    visible: bool | None = None
    # Incremental updates (patch.py): only for a tab of one document in one session, read
    # through the accessibility tree. ``frames`` is its change signal when it was taken.
    patchable: bool = False
    frame_id: str = ""
    frames: tuple[str, ...] = ()
    render: RenderState | None = None            # its snapshot's rendering (restyle.py)
    wide: bool = False                           # a patch after a page-wide change
    restyled: int = 0                            # a patch: re-rendered elements it read again
    # Per query options, the last answer's nodes and their JSON: handed on to the tab's next
    # capture, which reuses those whose record and box did not change (render.py).
    node_caches: dict[LayoutOptions, NodeCache] = field(default_factory=dict)
    # The last check that found the page as captured (then the signal held): a request that
    # arrived before it was sent needs no check of its own (service.LayoutService).
    checked: Probed | None = None
    # The tab's own session's tree (hits.py), and the last hit test's view and results.
    ancestry: Ancestry | None = None
    hits: tuple[View, dict[str, bool | None]] | None = None
    # The top-level document's scroll (CSS px) when its snapshot was taken: what sticky
    # placements are right for (holds_at).
    scroll: tuple[float, float] | None = None
    view_key: tuple[float, float, float] | None = None     # change_signal.view_key of its after-check
    # The probe and layout metrics of the last answer given from it: the view a person still
    # sees while a navigation to a new document is pending (answer.previous_document).
    shown: tuple[ProbeResult, PageGetLayoutMetricsResult] | None = None

    def holds_at(self, metrics: PageGetLayoutMetricsResult) -> bool:
        """Sticky content moves with scroll: a capture with some is right only at the scroll its
        snapshot was taken at (not the one read after it: a scroll during the read must not
        leave sticky boxes cached for a scroll position they are not right for)."""
        if not self.sticky or self.scroll is None:
            return True
        return same_scroll(layout_scroll(metrics), self.scroll)


# Per session (target id): its snapshot and its documents placed in the tab.
Placed = dict[str, tuple[Snapshot, dict[int, DocumentPlacement]]]


def place_sessions(page: Page, snapshot: Snapshot, children: list[ChildSession],
                   found: dict[str, tuple[Snapshot, int | None]]) -> Placed:
    """Every session's documents placed in the tab: the page's, then each out-of-process iframe
    through its owner element in its parent (parents first, so nesting works)."""
    placed: Placed = {page.target_id: (snapshot, snapshot.placements(TOP_LEVEL))}
    pending = [child for child in children if child.target_id in found]
    progressed = True
    while pending and progressed:
        progressed = False
        for child in list(pending):
            parent = placed.get(child.parent_target_id)
            if parent is None:
                continue
            pending.remove(child)
            progressed = True
            child_snapshot, owner_id = found[child.target_id]
            root = _oopif_root(parent[0], parent[1], owner_id, child_snapshot)
            placed[child.target_id] = (child_snapshot, child_snapshot.placements(root) if root else {})
    return placed


def _oopif_root(parent: Snapshot, parent_placements: dict[int, DocumentPlacement],
                owner_id: int | None, child: Snapshot) -> DocumentPlacement | None:
    if owner_id is None or not child.documents:
        return None
    doc_index = parent.owner_document.get(owner_id)
    if doc_index is None or doc_index not in parent_placements:
        return None
    root = child.documents[0]
    return parent.child_placement(parent.documents[doc_index], parent_placements[doc_index],
                                  owner_id, root.scroll_x, root.scroll_y)


def placements(records: list[Record], keys: list[str], placed: Placed) -> list[Placement | None]:
    """Each record's placement (``keys``: each one's session)."""
    if not keys or keys.count(keys[0]) == len(keys):      # one session
        session = placed.get(keys[0]) if keys else None
        if session is None:
            return [None] * len(records)
        return session[0].placements_of([r.get("backendDOMNodeId") for r in records], session[1])
    result: list[Placement | None] = [None] * len(records)
    by_session: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        by_session.setdefault(key, []).append(index)
    for key, indices in by_session.items():
        session = placed.get(key)
        if session is None:
            continue
        made_now = session[0].placements_of([records[i].get("backendDOMNodeId") for i in indices],
                                            session[1])
        for index, placement in zip(indices, made_now):
            result[index] = placement
    return result


def sticky(placed: Placed) -> bool:
    return any(doc.has_sticky for snap, _p in placed.values() for doc in snap.documents)


def scroll_of(snapshot: Snapshot) -> tuple[float, float] | None:
    """The top-level document's scroll in the snapshot, CSS px."""
    if not snapshot.documents:
        return None
    top = snapshot.documents[0]
    return top.scroll_x, top.scroll_y


def of_frame(snapshot: Snapshot, frame_id: str) -> bool:
    """Whether the snapshot's top document is the frame's (not one it navigated to since)."""
    return not snapshot.documents or snapshot.documents[0].frame_id in ("", frame_id)


async def parsed_snapshot(session: Session, dpr: float, *, boxes: bool = True) -> Snapshot:
    """A session's DOM snapshot, parsed (with its ``boxes`` read) as soon as it arrives: in a
    full read the renderer answers it before the accessibility tree asked for at the same
    time, so that work overlaps the wait."""
    reply = await session.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS)
    with gc_paused():
        snapshot = Snapshot(reply, dpr)
        if boxes:
            snapshot.read_boxes()
        return snapshot


def one_document(page: Page, records: list[Record] | None, snapshot: Snapshot, frame_id: str,
                 ) -> Capture | None:
    """A capture of a tab of one document read through its accessibility tree (patched),
    placed by ``snapshot``; None without records, or when the snapshot holds more than that
    document or another one."""
    release_later(snapshot)
    if records is None or len(snapshot.documents) != 1 or not of_frame(snapshot, frame_id):
        return None
    placed = place_sessions(page, snapshot, [], {})
    keys = [page.target_id] * len(records)
    with gc_paused():
        return Capture(signal=(), records=records, placements=placements(records, keys, placed),
                       source="accessibility", sticky=sticky(placed), sessions=keys,
                       patchable=True, frame_id=frame_id,
                       render=snapshot.render_state(), ancestry=Ancestry(snapshot.ancestry()),
                       scroll=scroll_of(snapshot))
