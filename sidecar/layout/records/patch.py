"""Incremental accessibility records: re-read only the subtrees a DOM change can have touched.

``Accessibility.getFullAXTree`` serialises every node each time (about three nodes and 1.5 KB
per element): most of the cost of a ``/layout`` asked right after an action. An action usually changes a small part of the page, so:

1. The page's change tracker (probe.py) remembers which nodes changed, and at which change count.
   ``TAKE`` turns those changed since the cached capture into a minimal set of root elements
   whose accessibility subtrees may differ. It widens the set for labels (a label names a control
   outside the change), radio groups (checking one unchecks the others silently) and elements
   named or described through ``aria-labelledby``/``aria-describedby``.
2. For each root, ``Accessibility.getAXNodeAndAncestors`` (the root's node and ancestors: their
   names can come from the changed content, and their childIds from the changed structure),
   then the root's subtree with ``Accessibility.getChildAXNodes``, level by level, each level's
   reads pipelined on the one connection.
3. The old subtrees are replaced by the new ones, the ancestors refreshed, the rest kept as is.

Node ids are Chromium's AXObject ids, stable between calls while the domain is enabled, so the
spliced tree is the tree a full read would return (the layout tests compare the two after
randomised changes). A page-wide change (at <html>/<body>, in <head>, a resize, fonts) has no
root of its own: the take reports <body> as ``top``, whose own node and ancestors are read again.
After any patch the reader (read_patch.py) also reads what restyle.py finds re-rendered beyond the roots.
Whatever the patch cannot vouch for makes it return None and the caller reads the whole tree:
another document, a change record that overflowed, a page with aria-owns, a root without an
accessibility node, or a child id that neither the old tree nor the new reads account for.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from httpapi.json_types import JSONObject

from sidecar.cdp.connection import CDPError

from . import axtree, splice
from .axtree import Record
from ..runtime.seams import Session
from ..probing.probe import OPEN_SELECT, TRACKER_KEY
from ...page_js import load_js
from ...cdp.protocol.cdp_commands import (AccessibilityGetAXNodeAndAncestorsResult, RuntimeEvaluateParams,
                                          RuntimeEvaluateResult)
from ...cdp.protocol.cdp_types import AccessibilityAXNode as AXNode, AccessibilityAXValue

AncestorsReply = AccessibilityGetAXNodeAndAncestorsResult
MAX_ROOTS = 64              # more separate changed subtrees than this: read the whole tree
MAX_REFERRERS = 512         # more aria-labelledby/-describedby users than this: the same

_TAKE = load_js("sidecar.layout.records", "patch_take.js")


def take_params(frame_signal: str) -> RuntimeEvaluateParams | None:
    """The Runtime.evaluate that asks a page for the roots changed since ``frame_signal`` (the
    cached capture's ``token:changes:scrolls``), or None if that is not a tracked frame's."""
    parts = frame_signal.split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    expression = (_TAKE.replace("__KEY__", json.dumps(TRACKER_KEY))
                  .replace("__OPEN_SELECT__", OPEN_SELECT)
                  .replace("__TOKEN__", json.dumps(parts[0])).replace("__SINCE__", parts[1])
                  .replace("__MAX_ROOTS__", str(MAX_ROOTS))
                  .replace("__MAX_REFERRERS__", str(MAX_REFERRERS)))
    # Deep serialization gives each root element's backendNodeId in the same reply.
    return {"expression": expression, "silent": True,
            "serializationOptions": {"serialization": "deep", "maxDepth": 1}}


@dataclass(frozen=True)
class Take:
    """What a page says changed since a capture (``take_params``)."""

    roots: list[int]              # backendNodeIds of the elements whose subtrees to read again
    # After a page-wide change (restyle.py): the backendNodeId of <body> (or <html>), whose own
    # node and ancestors are read again; None after local changes only.
    top: int | None = None


def parse_take(reply: RuntimeEvaluateResult) -> Take | None:
    """A ``take_params`` evaluation ([top or null, ...roots]); None: read the whole tree."""
    items = _serialized_items(reply)
    if not items:
        return None
    top = None
    if items[0].get("type") != "null":
        top = _backend_id(items[0])
        if top is None:
            return None
    roots = [_backend_id(item) for item in items[1:]]
    if any(root is None for root in roots):
        return None
    return Take([root for root in roots if root is not None], top)   # drops nothing (checked above)


def _serialized_items(reply: RuntimeEvaluateResult) -> list[JSONObject] | None:
    if "exceptionDetails" in reply:
        return None
    result = reply.get("result")
    value = result.get("deepSerializedValue") if result is not None else None
    if value is None or value.get("type") != "array":
        return None
    return [item for item in value.get("value", []) if isinstance(item, dict)]


def _backend_id(item: JSONObject) -> int | None:
    node = item.get("value") if item.get("type") == "node" else None
    backend_id = node.get("backendNodeId") if isinstance(node, dict) else None
    return backend_id if isinstance(backend_id, int) else None


# A root's node with its ancestors; a node's children (through ignored ones: ignored nodes and
# their children come in the same reply). Both answer at once. Accessibility.queryAXTree is not
# used: Chromium answers it only at the document's next accessibility update, so a navigation
# that commits first leaves it unanswered for good, and the renderer has then crashed (SIGSEGV)
# on a later navigation.
ANCESTORS: Final = "Accessibility.getAXNodeAndAncestors"
CHILDREN: Final = "Accessibility.getChildAXNodes"
MAX_LEVELS = 64              # a subtree deeper than this (in reads) is left to a full read
# A read per node that has children costs far more per node than one getFullAXTree: a patch
# that reads again more than 1/PATCH_SHARE of the page's nodes is left to a full read.
PATCH_SHARE = 8
MIN_NODE_BUDGET = 256        # nodes a patch may read again on any page (small pages included)


@dataclass
class NodeBudget:
    """How many more nodes a patch may read again before a full read is the cheaper one."""

    left: int

    def spend(self, nodes: int) -> bool:
        self.left -= nodes
        return self.left >= 0


def node_budget(records: list[Record]) -> NodeBudget:
    return NodeBudget(max(MIN_NODE_BUDGET, len(records) // PATCH_SHARE))


def old_subtree_nodes(records: list[Record], roots: list[int]) -> int:
    """How many nodes the roots' subtrees had in ``records`` (pre-order; roots without a node of
    their own there count nothing): what a patch of them will likely read again."""
    wanted = set(roots)
    found = [index for index, record in enumerate(records) if record.get("backendDOMNodeId") in wanted]
    if not found:
        return 0
    positions = {record["nodeId"]: index for index, record in enumerate(records)}
    return sum(len(splice.subtree_ids(records, positions, records[index]["nodeId"])) for index in found)


@dataclass
class Reads:
    """One patch's accessibility reads, in flight (start_reads)."""

    futures: list[asyncio.Future[AncestorsReply]]     # per root: its node and ancestors
    budget: NodeBudget                        # the nodes the subtree reads may still read
    top: asyncio.Future[AncestorsReply] | None = None     # Take.top's node and ancestors
    # The first roots' (subtree, chain), settled once: a splice of the same reads again (with
    # roots added) does not repeat their reads.
    settled: list[tuple[list[AXNode], list[AXNode]] | None] = field(default_factory=list)


def start_reads(session: Session, roots: list[int], budget: NodeBudget, top: int | None = None) -> Reads:
    """Send every root's node-and-ancestors read now, for ``patched_records`` (which reads
    the subtrees below them, within ``budget``); and ``top``'s node and ancestors."""
    reads = Reads(_sent(session, roots), budget)
    if top is not None:
        reads.top = asyncio.ensure_future(session.send(ANCESTORS, {"backendNodeId": top}))
    return reads


def add_reads(session: Session, reads: Reads, roots: list[int]) -> None:
    """Read these roots too, sent now."""
    reads.futures.extend(_sent(session, roots))


def _sent(session: Session, roots: list[int]) -> list[asyncio.Future[AncestorsReply]]:
    return [asyncio.ensure_future(session.send(ANCESTORS, {"backendNodeId": root})) for root in roots]


async def _settled(session: Session, reads: Reads,
                   ) -> list[tuple[list[AXNode], list[AXNode]] | None]:
    """Every root's (subtree, chain) (see subtree_of); those settled by an earlier call kept."""
    replies = await asyncio.gather(*reads.futures[len(reads.settled):])
    reads.settled.extend(await asyncio.gather(*(subtree_of(session, reply, reads.budget)
                                                for reply in replies)))
    return reads.settled


async def subtree_of(session: Session, chain_reply: AncestorsReply, budget: NodeBudget,
                     ) -> tuple[list[AXNode], list[AXNode]] | None:
    """A root's accessibility subtree (its node first, ignored nodes included) and the chain from
    it to the document's node. A root that is not in the tree itself (e.g. a plain <span>: its
    text hangs under the parent's node) is read from its nearest ancestor that is; None if that
    is the document's own node, or the subtree is deeper than MAX_LEVELS reads or larger than
    the budget."""
    chain = chain_reply.get("nodes") or []
    index = next((i for i in range(len(chain) - 1) if in_tree(chain, i)), None)
    if index is None:
        return None
    subtree = await descendants(session, chain[index], budget)
    return None if subtree is None else (subtree, chain[index:])


async def descendants(session: Session, node: AXNode, budget: NodeBudget,
                      ) -> list[AXNode] | None:
    """``node`` and every node below it, read level by level (each level's reads pipelined):
    a reply holds a node's children, and the whole subtree of each ignored child. None when
    deeper than MAX_LEVELS reads, or when the nodes read overdraw ``budget``."""
    found: list[AXNode] = [node]
    level: list[AXNode] = [node]
    known = {str(node.get("nodeId"))}
    for _ in range(MAX_LEVELS):
        if not budget.spend(len(level)):
            return None
        unread = [n for n in level if any(str(c) not in known for c in n.get("childIds", ()))]
        if not unread:
            return found
        replies = await asyncio.gather(*(session.send(CHILDREN, {"id": str(n["nodeId"])})
                                         for n in unread))
        level = []
        for reply in replies:
            for child in reply.get("nodes") or ():
                child_id = str(child.get("nodeId"))
                if child_id not in known:
                    known.add(child_id)
                    found.append(child)
                    level.append(child)
    return None


async def patched_records(session: Session, records: list[Record], reads: Reads,
                          frame_id: str) -> list[Record] | None:
    """``records`` (a capture's, pre-order, one frame) with the subtrees under the roots of
    ``reads`` (start_reads) read again; None when the result could differ from a full read.
    Never modifies ``records``."""
    if not reads.futures and reads.top is None:
        return records
    try:
        settled = await _settled(session, reads)
        top_chain = (await reads.top).get("nodes") or [] if reads.top is not None else None
    except CDPError:              # e.g. a root removed meanwhile: the after-probe would see it too
        return None
    positions = {record["nodeId"]: index for index, record in enumerate(records)}
    top_id = records[0]["nodeId"] if records else None
    fresh: dict[str, AXNode] = {}
    replaced: set[str] = set()
    tops: dict[str, int] = {}         # each re-read subtree's top -> its old subtree's size
    for read in settled:
        if read is None or str(read[1][-1].get("nodeId")) != top_id:
            return None           # no accessibility node below the document's, or another document
        subtree, chain = read
        top = str(subtree[0]["nodeId"])
        old = splice.subtree_ids(records, positions, top)
        tops[top] = len(old)
        replaced.update(old)
        for node in subtree:
            fresh[str(node["nodeId"])] = node
        for node in chain[1:]:
            fresh.setdefault(str(node["nodeId"]), node)
    if top_chain is not None:     # <body>'s own node (when in the tree) and its ancestors
        if not top_chain or str(top_chain[-1].get("nodeId")) != top_id:
            return None
        for index, node in enumerate(top_chain):
            if in_tree(top_chain, index):
                fresh.setdefault(str(node["nodeId"]), node)
    if not splice.accounted(records, positions, fresh, replaced):
        return None
    new = axtree.ax_records(as_in_full_tree(fresh.values()), frame_id,
                            target_id=records[0].get("targetId") if records else None)
    in_place = splice.spliced(records, positions, new, tops, replaced)
    if in_place is not None:
        return in_place
    kept = [r for r in records if r["nodeId"] not in replaced and r["nodeId"] not in fresh]
    return axtree.preorder(kept + new)


def in_tree(chain: list[AXNode], index: int) -> bool:
    """Whether chain[index] is one of its parent's children (the last one is the root)."""
    if index + 1 >= len(chain):
        return True
    return str(chain[index].get("nodeId")) in map(str, chain[index + 1].get("childIds", ()))


_NO_ROLE: AccessibilityAXValue = {"type": "role", "value": "none"}


def as_in_full_tree(nodes: Iterable[AXNode]) -> Iterable[AXNode]:
    """An ignored node as getFullAXTree reports it (role "none", no name), whichever call read
    it, so a patched tree equals a full read."""
    for node in nodes:
        if node.get("ignored"):
            unnamed = node.copy()
            unnamed["role"] = _NO_ROLE
            unnamed.pop("name", None)
            node = unnamed
        yield node
