"""The read of a tab whose top document alone changed: its accessibility tree read again, its
iframes' trees (same-process and out-of-process ones) taken over from the last capture, and
every DOM snapshot read again (the boxes: an iframe moves when the page around it changes).

A page with iframes is not patched (patch.py reads one document), and its frames' trees are
most of a whole read. The probe counts each frame's changes apart, so "only the top document
changed" is known before the read (readers.Frames); what the top document's change can do to a
frame's tree through its iframe element (hide it, make it inert or aria-hidden, remove it) shows
in that element's own node, which is compared: any difference, and the tab is read whole.
"""

from __future__ import annotations

import asyncio

from ..records import axtree
from ..runtime.aio import or_exception
from ..records.axtree import Record
from .capture import (Capture, PageChanged, of_frame, parsed_snapshot, place_sessions, placements,
                      scroll_of, sticky)
from ..snapshot.ancestry import Ancestry
from ..runtime.memory import gc_paused, release_later
from .read_whole import attach_oopif, link_frames, read_child
from ..runtime.seams import ChildSession, Page


async def read_top_document(page: Page, children: list[ChildSession], dpr: float,
                            previous: Capture) -> Capture | None:
    """The tab with only its top document's tree read again; None when the frames' trees cannot
    be taken over (then the tab is read whole)."""
    frame_tree, snapshot, ax_reply, *child_results = await asyncio.gather(
        page.send("Page.getFrameTree"), parsed_snapshot(page, dpr),
        or_exception(page.send("Accessibility.getFullAXTree")),
        *(read_child(page, child, dpr, accessibility=False) for child in children))
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    if not of_frame(snapshot, main_frame):
        raise PageChanged("the snapshot is of another document than the frame tree")
    release_later(ax_reply, snapshot, child_results)
    if isinstance(ax_reply, BaseException) or previous.frame_id != main_frame \
            or previous.source != "accessibility" or any(r is None for r in child_results):
        return None                  # the whole read reports it, or reads the DOM instead
    with gc_paused():
        top = axtree.ax_records(ax_reply.get("nodes", []), main_frame, "")
        for record in top:
            record["targetId"] = page.target_id
        kept = _kept_records(previous, page.target_id, main_frame)
        in_snapshot = {doc.frame_id for doc in snapshot.documents[1:]}
        frames = kept.pop(page.target_id, [])
        if any(r["frameId"] not in in_snapshot for r in frames):
            return None              # a frame no longer rendered in the page's process
        # The top document's iframe elements (a frame's own iframes are in its kept tree).
        owners = [*snapshot.documents[0].child_documents, *(result[2] for result in child_results)]
        if not _owners_show_the_same(previous, page.target_id, main_frame, top, owners):
            return None
        records = top + _unhung(frames)
        link_frames(snapshot, records)
        sessions: list[tuple[str, list[Record]]] = [(page.target_id, records)]
        for child, (_snapshot, _none, owner_id, _source) in zip(children, child_results):
            child_records = _unhung(kept.get(child.target_id, []))
            if not child_records:
                return None
            attach_oopif(child_records, owner_id, records)
            sessions.append((child.target_id, child_records))
        placed = place_sessions(page, snapshot, children,
                                {child.target_id: (result[0], result[2])
                                 for child, result in zip(children, child_results)})
        ordered = axtree.preorder([r for _key, recs in sessions for r in recs])
        session_of = {r["nodeId"]: key for key, recs in sessions for r in recs}
        keys = [session_of[r["nodeId"]] for r in ordered]
        return Capture(signal=(), records=ordered, placements=placements(ordered, keys, placed),
                       source="accessibility", sticky=sticky(placed), sessions=keys,
                       patchable=False, frame_id=main_frame,
                       ancestry=Ancestry(snapshot.ancestry()), scroll=scroll_of(snapshot))


def _kept_records(previous: Capture, page_id: str, main_frame: str) -> dict[str, list[Record]]:
    """The last capture's records of the frames, by session: the page's own iframes (every
    record of the page's session not of its top document) and each out-of-process iframe's."""
    kept: dict[str, list[Record]] = {}
    for record, session in zip(previous.records, previous.sessions):
        if session != page_id or record["frameId"] != main_frame:
            kept.setdefault(session, []).append(record)
    return kept


def _unhung(records: list[Record]) -> list[Record]:
    """The records with their roots (those whose parent is not among them) as copies without a
    parent, to be hung under the new capture's iframe nodes; the others shared, unchanged."""
    ids = {r["nodeId"] for r in records}
    return [r if r["parentId"] in ids else {**r, "parentId": None} for r in records]


def _owners_show_the_same(previous: Capture, page_id: str, main_frame: str, top: list[Record],
                          owners: list[int | None]) -> bool:
    """Whether each iframe element's node (by backendNodeId) has the same role and ignored state
    as in the last capture: what hides a frame's content (display:none, visibility, inert,
    aria-hidden on it or an ancestor) changes that."""
    def shown(record: Record | None) -> tuple[str, bool] | None:
        return None if record is None else (axtree.role_of(record), bool(record.get("ignored")))

    before = {r["backendDOMNodeId"]: r for r, s in zip(previous.records, previous.sessions)
              if s == page_id and r["frameId"] == main_frame}
    now = {r["backendDOMNodeId"]: r for r in top}
    return all(owner is not None and shown(before.get(owner)) is not None
               and shown(before.get(owner)) == shown(now.get(owner)) for owner in owners)
