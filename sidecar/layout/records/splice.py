"""Re-read accessibility subtrees put into a capture's records, keeping its pre-order.

patch.py reads the subtrees a change touched and their ancestors again; the result must be the
tree a full read gives, in pre-order. Ordering the whole tree again (axtree.preorder) costs
time in proportion to the whole tree on every patch, however small the change. But in pre-order a
subtree is one run of the list, so the usual patch is a few slice replacements: each re-read
subtree takes the place of its old run, and each re-read ancestor keeps its place when its
children are the same. ``spliced`` does that, and says None whenever the tree's shape changed
in a way slices cannot follow (a new or moved subtree, an ancestor with other children,
overlapping reads); the caller then orders the whole tree.
"""

from __future__ import annotations

from collections.abc import Mapping

from .axtree import Record
from ...cdp.protocol.cdp_types import AccessibilityAXNode as AXNode


def subtree_ids(records: list[Record], positions: dict[str, int], top: str) -> set[str]:
    """``top`` and every node below it in the old tree (``positions``: nodeId -> index)."""
    found: set[str] = set()
    stack = [top]
    while stack:
        node_id = stack.pop()
        if node_id in found:
            continue
        found.add(node_id)
        index = positions.get(node_id)
        if index is not None:
            stack.extend(records[index]["childIds"])
    return found


def accounted(records: list[Record], positions: dict[str, int], fresh: Mapping[str, AXNode],
              replaced: set[str]) -> bool:
    """Whether the patched tree holds every node it links to: each child id of the nodes read
    again (``fresh``: raw AX nodes by id) is read again or kept, and no kept node points at one
    that is gone (``replaced``: the old subtrees read again, minus what the reads brought back)."""
    def known(child: str) -> bool:
        return child in fresh or (child in positions and child not in replaced)

    for node in fresh.values():
        for child in node.get("childIds", ()):
            if not known(str(child)):
                return False      # e.g. a sibling a CSS rule revealed: not read, not vouched for
    # In the old tree only a node's parent lists it: a gone node's parent must be read again too.
    for gone in replaced.difference(fresh):
        index = positions.get(gone)
        parent = records[index]["parentId"] if index is not None else None
        if parent is not None and parent in positions and parent not in fresh and parent not in replaced:
            return False
    return True


def spliced(records: list[Record], positions: dict[str, int], new: list[Record],
            tops: dict[str, int], replaced: set[str]) -> list[Record] | None:
    """``records`` (pre-order) with the re-read subtrees (``tops``: each one's top nodeId ->
    its old subtree's size) and ancestors (``new``: their records) in place; None when slices
    cannot express the change. Updates only ``new``'s records (links to nodes no record is kept
    for, e.g. InlineTextBox, are dropped, as axtree.preorder drops them)."""
    by_id = {record["nodeId"]: record for record in new}
    runs: list[tuple[int, int, list[Record]]] = []
    in_runs: set[str] = set()
    for top, size in tops.items():
        start = positions.get(top)
        order = _pre_order(top, by_id, positions, replaced) if start is not None else None
        if start is None or order is None:
            return None           # a subtree that is new here, or not a tree
        runs.append((start, size, order))
        in_runs.update(record["nodeId"] for record in order)
    runs.sort(key=lambda run: run[0])
    for (start, size, _), (next_start, _, _) in zip(runs, runs[1:]):
        if next_start < start + size:
            return None           # overlapping reads (a root read again from an ancestor)
    result = records.copy()
    placed = len(in_runs)
    for record in new:            # the ancestors read again: in place, with the same children
        node_id = record["nodeId"]
        if node_id in in_runs:
            continue
        index = positions.get(node_id)
        if index is None or node_id in replaced:
            return None
        _keep_present(record, by_id, positions, replaced)
        if record["childIds"] != records[index]["childIds"]:
            return None           # children added or removed around the subtrees
        result[index] = record
        placed += 1
    if placed != len(by_id) or any(node_id in positions and node_id not in replaced
                                   for node_id in in_runs):
        return None               # a node read twice, or moved in from elsewhere
    pieces: list[Record] = []
    cursor = 0
    for start, size, order in runs:
        pieces.extend(result[cursor:start])
        pieces.extend(order)
        cursor = start + size
    pieces.extend(result[cursor:])
    return pieces


def _pre_order(top: str, by_id: dict[str, Record], positions: dict[str, int],
               replaced: set[str]) -> list[Record] | None:
    """The new subtree under ``top`` in pre-order, or None if it links to an old node kept
    outside it, or is not a tree."""
    order: list[Record] = []
    seen: set[str] = set()
    stack = [top]
    while stack:
        node_id = stack.pop()
        record = by_id.get(node_id)
        if record is None or node_id in seen:
            return None
        seen.add(node_id)
        order.append(record)
        children = record["childIds"]
        present = [child for child in children if child in by_id]
        if len(present) != len(children):
            if any(child in positions and child not in replaced
                   for child in children if child not in by_id):
                return None       # a link to an old node kept outside the subtree
            record["childIds"] = present      # links to nodes without a record: dropped
        stack.extend(reversed(present))
    return order


def _keep_present(record: Record, by_id: dict[str, Record], positions: dict[str, int],
                  replaced: set[str]) -> None:
    """Drop ``record``'s links to nodes that have no record in the patched tree (e.g.
    InlineTextBox, which the records leave out)."""
    children = record["childIds"]
    present = [child for child in children
               if child in by_id or (child in positions and child not in replaced)]
    if len(present) != len(children):
        record["childIds"] = present
