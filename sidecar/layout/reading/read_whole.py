"""The whole read of a tab, the reference every other reader is held to (``?fresh=true``): the
AX trees and DOM snapshots of the page and each of its out-of-process iframes, all requested at
once over the one connection. And the rescan: the same nodes with fresh boxes after scrolling."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from sidecar.cdp.connection import CDPDisconnected, CDPSessionClosed, CDPTimeout

from ..records import axtree
from ..runtime.aio import nothing, or_exception
from ..records.axtree import Record
from .capture import (Capture, PageChanged, Placed, of_frame, parsed_snapshot, place_sessions,
                      placements, scroll_of, sticky)
from ..records.dom_fallback import dom_records
from ..geometry.spaces import Placement
from ..snapshot.ancestry import Ancestry
from ..runtime.memory import gc_paused, release_later
from ..runtime.seams import ChildSession, Page, Session
from ..snapshot.dom_boxes import CAPTURE_PARAMS, Snapshot
from ...cdp.protocol.cdp_commands import AccessibilityGetFullAXTreeResult, PageGetFrameTreeResult

log = logging.getLogger(__name__)

# Iframes' AX trees asked for ahead (the reply, or the exception the call raised), by frame id.
FrameTrees = dict[str, asyncio.Future[AccessibilityGetFullAXTreeResult | Exception]]
# An out-of-process iframe's snapshot, its records (None: not asked), its owner iframe element's
# backendNodeId in the parent, and the records' source.
ChildRead = tuple[Snapshot, list[Record] | None, int | None, str]


async def read_whole(page: Page, children: list[ChildSession], dpr: float, *,
                     inline_text_boxes: bool = False) -> Capture:
    """A full read of the tab. ``inline_text_boxes``: keep Chromium's InlineTextBox nodes, each
    placed at its line box."""
    frame_tree_call = asyncio.ensure_future(page.send("Page.getFrameTree"))
    # The same-process iframes' trees are asked for as soon as the frame tree names them: the
    # renderer goes on to them right after the page's own calls, while the snapshot is parsed
    # here (asked for once that names them, they waited for the parse and a round trip).
    ahead = asyncio.ensure_future(_frame_trees_ahead(page, frame_tree_call, children))
    snapshot_call = parsed_snapshot(page, dpr)
    # Enabled, the domain keeps node ids stable between calls, and a later patch (patch.py)
    # can read a node's ancestors. Idempotent and cheap.
    enable_call = or_exception(page.send("Accessibility.enable")) if not children else nothing()
    ax_call = page.send("Accessibility.getFullAXTree")
    child_calls = [read_child(page, child, dpr, inline_text_boxes=inline_text_boxes)
                   for child in children]
    frame_tree, snapshot, enabled, ax_reply, *child_results = await asyncio.gather(
        frame_tree_call, snapshot_call, enable_call, or_exception(ax_call), *child_calls)
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    if not of_frame(snapshot, main_frame):
        raise PageChanged("the snapshot is of another document than the frame tree")
    sessions: list[tuple[str, list[Record]]] = []
    records, source = await _session_records(page, snapshot, main_frame, ax_reply, "",
                                             inline_text_boxes=inline_text_boxes,
                                             ahead=await ahead)
    sessions.append((page.target_id, records))

    # Out-of-process iframes, parents before children, each placed by its owner element.
    found = {child.target_id: result for child, result in zip(children, child_results) if result}
    placed = place_sessions(page, snapshot, children,
                            {tid: (snap, owner) for tid, (snap, _recs, owner, _src) in found.items()})
    parents = {child.target_id: child.parent_target_id for child in children}
    for target_id in placed:                 # parents first: an owner's node exists already
        if target_id not in found:
            continue
        _snapshot, child_records, owner_id, child_source = found[target_id]
        if child_records is None:
            continue
        if child_source == "dom":
            source = "dom"
        # backendNodeIds are per renderer: look for the owner in the parent's session only.
        parent_records = next((recs for key, recs in sessions if key == parents[target_id]), [])
        attach_oopif(child_records, owner_id, parent_records)
        sessions.append((target_id, child_records))

    # The parsed replies (about fifty objects per element) are freed after the answer.
    release_later(ax_reply, snapshot, child_results)
    with gc_paused():
        ordered = axtree.preorder([r for _key, recs in sessions for r in recs])
        session_of = {r["nodeId"]: key for key, recs in sessions for r in recs}
        keys = [session_of[r["nodeId"]] for r in ordered]
        patchable = (source == "accessibility" and not children and len(snapshot.documents) == 1
                     and not isinstance(enabled, BaseException) and bool(ordered)
                     and not inline_text_boxes)
        placed_records = placements(ordered, keys, placed)
        if inline_text_boxes:
            _place_text_boxes(ordered, keys, placed_records, placed)
        return Capture(signal=(), records=ordered, placements=placed_records,
                       source=source, sticky=sticky(placed), sessions=keys,
                       patchable=patchable, frame_id=main_frame,
                       render=snapshot.render_state() if patchable else None,
                       ancestry=Ancestry(snapshot.ancestry()), scroll=scroll_of(snapshot))


async def rescan(page: Page, children: list[ChildSession], dpr: float, capture: Capture) -> Capture:
    """The same nodes with boxes from fresh DOM snapshots (after scrolling inside the page)."""
    frame_tree_call = asyncio.ensure_future(page.send("Page.getFrameTree"))
    snapshot_call = asyncio.ensure_future(page.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS))
    child_calls = [asyncio.ensure_future(read_child(page, child, dpr, accessibility=False)) for child in children]
    await asyncio.gather(frame_tree_call, snapshot_call, *child_calls)
    frame_tree, snapshot_reply = frame_tree_call.result(), snapshot_call.result()
    child_results = [call.result() for call in child_calls]
    with gc_paused():
        snapshot = Snapshot(snapshot_reply, dpr)
    if not of_frame(snapshot, frame_tree["frameTree"]["frame"]["id"]):
        raise PageChanged("the snapshot is of another document than the frame tree")
    found = {child.target_id: (result[0], result[2]) for child, result in zip(children, child_results) if result}
    placed = place_sessions(page, snapshot, children, found)
    with gc_paused():
        # The same nodes: a patch can still start from them (the rendering is the new one's).
        return Capture(signal=(), records=capture.records,
                       placements=placements(capture.records, capture.sessions, placed),
                       source=capture.source, sticky=sticky(placed), sessions=capture.sessions,
                       patchable=capture.patchable, frame_id=capture.frame_id,
                       render=snapshot.render_state() if capture.patchable else None,
                       ancestry=Ancestry(snapshot.ancestry()), scroll=scroll_of(snapshot))


def _place_text_boxes(records: list[Record], keys: list[str], placed_records: list[Placement | None],
                      placed: Placed) -> None:
    """Each InlineTextBox record placed at its line box: the n-th InlineTextBox child of a text
    node is its n-th text box in the DOM snapshot (both come in line order). A text node whose
    counts differ leaves its boxes unplaced rather than pair them wrongly."""
    index_of = {r["nodeId"]: i for i, r in enumerate(records)}
    for index, record in enumerate(records):
        backend_id = record["backendDOMNodeId"]
        if backend_id is None or not record["childIds"]:
            continue
        line_indices = [index_of[c] for c in record["childIds"] if c in index_of
                        and axtree.role_of(records[index_of[c]]) == axtree.INLINE_TEXT_BOX]
        session = placed.get(keys[index]) if line_indices else None
        if session is None:
            continue
        lines = session[0].text_box_placements(backend_id, session[1])
        if len(lines) == len(line_indices):
            for line_index, line in zip(line_indices, lines):
                placed_records[line_index] = line


async def _session_records(session: Session, snapshot: Snapshot, frame_id: str,
                           ax_reply: dict | BaseException, prefix: str, *,
                           inline_text_boxes: bool = False,
                           ahead: FrameTrees | None = None) -> tuple[list[Record], str]:
    """The nodes of one session (a page or an OOPIF) and all frames in its process: its AX tree,
    its same-process iframes' AX trees hung under their iframe nodes, or the DOM fallback.
    ``ahead``: iframes' AX trees already asked for (_frame_trees_ahead)."""
    if isinstance(ax_reply, BaseException):
        if isinstance(ax_reply, (CDPSessionClosed, CDPDisconnected, CDPTimeout)):
            raise ax_reply
        log.info("AX tree unavailable (%s): DOM fallback", ax_reply)
        records = [r for doc in snapshot.documents for r in dom_records(
            doc, snapshot.strings, prefix + ("" if doc.index == 0 else f"d{doc.index}:"))]
        source = "dom"
    else:
        with gc_paused():
            records = axtree.ax_records(ax_reply.get("nodes", []), frame_id, prefix,
                                        inline_text_boxes=inline_text_boxes)
        records += await _same_process_frames(session, snapshot, frame_id, records, prefix,
                                              inline_text_boxes, ahead or {})
        source = "accessibility"
    link_frames(snapshot, records)
    target_id = session.target_id
    for record in records:
        record["targetId"] = target_id
    return records, source


async def _frame_trees_ahead(page: Page, frame_tree_call: Awaitable[PageGetFrameTreeResult],
                             children: list[ChildSession]) -> FrameTrees:
    """The AX trees of the page's iframes that are not out-of-process ones, asked for now: the
    snapshot says later which are in the page's process (one it does not list goes unused)."""
    try:
        tree = await frame_tree_call
    except Exception:        # noqa: BLE001 - read_whole reports it from the same call
        return {}
    elsewhere = {child.target_id for child in children}
    stack = list(tree.get("frameTree", {}).get("childFrames") or ())
    ahead: FrameTrees = {}
    while stack:
        node = stack.pop()
        frame_id = node.get("frame", {}).get("id")
        if not frame_id or frame_id in elsewhere:
            continue                 # an out-of-process iframe: its frames are its session's
        ahead[frame_id] = asyncio.ensure_future(or_exception(
            page.send("Accessibility.getFullAXTree", {"frameId": frame_id})))
        stack.extend(node.get("childFrames") or ())
    return ahead


async def _same_process_frames(session: Session, snapshot: Snapshot, root_frame: str,
                               root_records: list[Record], prefix: str,
                               inline_text_boxes: bool, ahead: FrameTrees) -> list[Record]:
    """AX trees of the iframes rendered in the session's own process (e.g. same-origin ones);
    ``ahead``: those already asked for, by frame id."""
    frames = [doc for doc in snapshot.documents[1:] if doc.frame_id and doc.frame_id != root_frame]
    if not frames:
        return []
    known = {r["backendDOMNodeId"] for r in root_records}
    replies = await asyncio.gather(*(
        ahead.get(doc.frame_id) or or_exception(
            session.send("Accessibility.getFullAXTree", {"frameId": doc.frame_id}))
        for doc in frames))
    records: list[Record] = []
    for doc, reply in zip(frames, replies):
        if isinstance(reply, BaseException):
            if isinstance(reply, (CDPSessionClosed, CDPDisconnected)):
                raise reply
            records += dom_records(doc, snapshot.strings, f"{prefix}d{doc.index}:")
            continue
        nodes = [n for n in reply.get("nodes", []) if n.get("backendDOMNodeId") not in known]
        records += axtree.ax_records(nodes, doc.frame_id, f"{prefix}f{doc.index}:",
                                     inline_text_boxes=inline_text_boxes)
    return records


def link_frames(snapshot: Snapshot, records: list[Record]) -> None:
    """Hang each same-process frame's root under its iframe element's node."""
    owner_of_doc = {child: owner for doc in snapshot.documents
                    for owner, child in doc.child_documents.items()}
    frame_doc = {doc.frame_id: doc.index for doc in snapshot.documents}
    by_backend = {r["backendDOMNodeId"]: r for r in records if r["backendDOMNodeId"] is not None}
    for record in records:
        if record["parentId"] is not None:
            continue
        doc_index = frame_doc.get(record["frameId"])
        owner_id = owner_of_doc.get(doc_index) if doc_index else None
        owner = by_backend.get(owner_id) if owner_id is not None else None
        if owner is not None and owner is not record:
            record["parentId"] = owner["nodeId"]
            owner["childIds"].append(record["nodeId"])


def attach_oopif(child_records: list[Record], owner_id: int | None, parent_records: list[Record]) -> None:
    """Hang an out-of-process iframe's roots under its owner iframe's node in its parent."""
    if owner_id is None:
        return
    owner = next((r for r in parent_records if r["backendDOMNodeId"] == owner_id), None)
    if owner is None:
        return
    for record in child_records:
        if record["parentId"] is None:
            record["parentId"] = owner["nodeId"]
            owner["childIds"].append(record["nodeId"])


async def read_child(page: Page, child: ChildSession, dpr: float, *, accessibility: bool = True,
                      inline_text_boxes: bool = False) -> ChildRead | None:
    """An OOPIF's snapshot, nodes (with its own same-process frames) and owner iframe element
    (its backendNodeId in the parent). None when the iframe went away meanwhile: the rest of
    the tab still stands."""
    parent_session: Session | None = page if child.parent_target_id == page.target_id else \
        page.children.get(child.parent_target_id)
    if parent_session is None:
        return None
    snapshot_reply, ax_reply, owner = await asyncio.gather(
        or_exception(child.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS)),
        or_exception(child.send("Accessibility.getFullAXTree")) if accessibility else nothing(),
        or_exception(parent_session.send("DOM.getFrameOwner", {"frameId": child.target_id})))
    if isinstance(snapshot_reply, BaseException):
        return None
    owner_id = None if isinstance(owner, BaseException) else owner.get("backendNodeId")
    with gc_paused():
        snapshot = Snapshot(snapshot_reply, dpr)
    if not accessibility:
        return snapshot, None, owner_id, ""
    try:
        records, source = await _session_records(child, snapshot, child.target_id, ax_reply,
                                                 f"{child.target_id[:8]}:",
                                                 inline_text_boxes=inline_text_boxes)
    except (CDPSessionClosed, CDPTimeout):
        return None
    return snapshot, records, owner_id, source
