"""sidecar.layout.records.splice: re-read subtrees put into a pre-order list by slices give the very
list a whole re-ordering (axtree.preorder) gives, and None where slices cannot follow."""

from __future__ import annotations

import copy

from sidecar.layout.records import axtree, splice


def record(node_id: str, parent: str | None, children: list[str], name: str = "") -> dict:
    return {"nodeId": node_id, "name": name, "parentId": parent, "childIds": children}


def tree() -> list[dict]:
    """root > a > (a1, a2), b > (b1 > b11), c: in pre-order."""
    return [record("root", None, ["a", "b", "c"]), record("a", "root", ["a1", "a2"]),
            record("a1", "a", []), record("a2", "a", []), record("b", "root", ["b1"]),
            record("b1", "b", ["b11"]), record("b11", "b1", []), record("c", "root", [])]


def patch(records: list[dict], new: list[dict], tops: list[str], unrecorded: tuple[str, ...] = ()):
    """Both ways of patching: (slices or None, whole re-ordering). ``unrecorded``: nodes read
    again that get no record (an InlineTextBox)."""
    positions = {r["nodeId"]: i for i, r in enumerate(records)}
    replaced: set[str] = set()
    sizes = {}
    for top in tops:
        old = splice.subtree_ids(records, positions, top)
        sizes[top] = len(old)
        replaced |= old
    fresh = {r["nodeId"]: r for r in new}
    fresh.update((node_id, {"nodeId": node_id, "childIds": []}) for node_id in unrecorded)
    assert splice.accounted(records, positions, fresh, replaced)
    by_slices = splice.spliced(records, positions, copy.deepcopy(new), sizes, replaced)
    kept = [r for r in records if r["nodeId"] not in replaced and r["nodeId"] not in fresh]
    whole = axtree.preorder(copy.deepcopy(kept) + copy.deepcopy(new))
    return by_slices, whole


def test_a_subtree_read_again_takes_its_old_place():
    records = tree()
    # b's subtree read again: b1 renamed, a new b12; root (an ancestor) read again too.
    new = [record("b", "root", ["b1", "b12"]), record("b1", "b", ["b11"], "renamed"),
           record("b11", "b1", []), record("b12", "b", []), record("root", None, ["a", "b", "c"])]
    by_slices, whole = patch(records, new, ["b"])
    assert by_slices == whole
    assert [r["nodeId"] for r in by_slices] == ["root", "a", "a1", "a2", "b", "b1", "b11", "b12", "c"]
    assert by_slices[0] is not records[0]          # the ancestor's new record, in place
    assert by_slices[1] is records[1]              # the rest: the very same records


def test_several_subtrees_and_links_to_nodes_without_records():
    records = tree()
    new = [record("a", "root", ["a1", "inline-box"]), record("a1", "a", []),
           record("c", "root", ["c1"]), record("c1", "c", []), record("root", None, ["a", "b", "c"])]
    by_slices, whole = patch(records, new, ["a", "c"], unrecorded=("inline-box",))
    assert by_slices == whole
    assert by_slices[1]["childIds"] == ["a1"]      # the InlineTextBox link dropped
    assert [r["nodeId"] for r in by_slices] == ["root", "a", "a1", "b", "b1", "b11", "c", "c1"]


def test_shapes_slices_cannot_follow_are_left_to_a_whole_ordering():
    records = tree()
    # An ancestor whose children changed (a sibling added next to the subtree).
    new = [record("b", "root", []), record("root", None, ["a", "b", "d", "c"]), record("d", "root", [])]
    by_slices, whole = patch(records, new, ["b", "d"])
    assert by_slices is None and [r["nodeId"] for r in whole] == ["root", "a", "a1", "a2", "b", "d", "c"]
    # Overlapping reads: a subtree and one inside it.
    new = [record("b", "root", ["b1"]), record("b1", "b", ["b11"]), record("b11", "b1", [])]
    assert patch(records, new, ["b", "b1"])[0] is None
    # A node moved in from outside the subtree read again.
    new = [record("b", "root", ["b1", "a2"]), record("b1", "b", ["b11"]), record("b11", "b1", []),
           record("a2", "b", [])]
    assert patch(records, new, ["b"])[0] is None


def test_a_gone_node_whose_kept_parent_still_lists_it_is_not_accounted_for():
    records = tree()
    positions = {r["nodeId"]: i for i, r in enumerate(records)}
    replaced = splice.subtree_ids(records, positions, "b1")
    # b1 read again without b11, but b1's parent b is not read again: b still lists b1 (fine),
    # and b11 is gone with b1 itself listing it no more.
    assert splice.accounted(records, positions, {"b1": {"nodeId": "b1", "childIds": []}}, replaced)
    # b1 gone entirely (not brought back) while its parent b is kept: b would point at nothing.
    assert not splice.accounted(records, positions, {}, replaced)
