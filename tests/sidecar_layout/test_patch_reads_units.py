"""sidecar.layout.records.patch's subtree reads: a root's subtree is read with calls Chromium answers at
once (getAXNodeAndAncestors, getChildAXNodes), level by level, never with queryAXTree (answered
only at the document's next accessibility update: never, when a navigation commits first)."""

from __future__ import annotations

import asyncio

from sidecar.layout.records import patch

# document > main > (list (ignored) > (item1 > text1, item2), span-text), footer
TREE: dict[str, dict] = {
    "doc": {"nodeId": "doc", "childIds": ["main", "footer"]},
    "main": {"nodeId": "main", "childIds": ["list", "text0"], "backendDOMNodeId": 10},
    "list": {"nodeId": "list", "ignored": True, "childIds": ["item1", "item2"]},
    "item1": {"nodeId": "item1", "childIds": ["text1"]},
    "text1": {"nodeId": "text1", "childIds": []},
    "item2": {"nodeId": "item2", "childIds": []},
    "text0": {"nodeId": "text0", "childIds": []},
    "footer": {"nodeId": "footer", "childIds": []},
}
PARENT = {child: node["nodeId"] for node in TREE.values() for child in node["childIds"]}


def _chain(node_id: str) -> list[dict]:
    chain = [TREE[node_id]]
    while chain[-1]["nodeId"] in PARENT:
        chain.append(TREE[PARENT[chain[-1]["nodeId"]]])
    return chain


def _children(node_id: str) -> list[dict]:
    """As Chromium's getChildAXNodes: the children, and below each ignored one its children."""
    out: list[dict] = []
    for child in TREE[node_id]["childIds"]:
        out.append(TREE[child])
        if TREE[child].get("ignored"):
            out.extend(_children(child))
    return out


def _plenty() -> patch.NodeBudget:
    return patch.NodeBudget(1000)


class FakeSession:
    target_id = session_id = "page"

    def __init__(self) -> None:
        self.sent: list[tuple[str, object]] = []

    async def send(self, method: str, params: dict | None = None, *, timeout: float | None = None) -> dict:
        params = params or {}
        self.sent.append((method, params.get("id", params.get("backendNodeId"))))
        if method == patch.CHILDREN:
            return {"nodes": _children(params["id"])}
        if method == patch.ANCESTORS:
            return {"nodes": _chain({10: "main", 11: "text1"}[params["backendNodeId"]])}
        raise AssertionError(f"unexpected call {method}")


def test_a_subtree_is_read_level_by_level_through_ignored_nodes() -> None:
    session = FakeSession()
    found = asyncio.run(patch.descendants(session, TREE["main"], _plenty()))
    assert found is not None
    assert found[0] is TREE["main"]
    assert sorted(n["nodeId"] for n in found) == ["item1", "item2", "list", "main", "text0", "text1"]
    # main's children (the ignored list's children with them), then item1's: two levels, and
    # nodes without children (or whose children came already) are never asked about.
    assert session.sent == [(patch.CHILDREN, "main"), (patch.CHILDREN, "item1")]
    assert all(method != "Accessibility.queryAXTree" for method, _ in session.sent)


def test_a_leaf_costs_no_read() -> None:
    session = FakeSession()
    assert asyncio.run(patch.descendants(session, TREE["footer"], _plenty())) == [TREE["footer"]]
    assert session.sent == []


def test_a_subtree_deeper_than_the_limit_is_left_to_a_full_read(monkeypatch) -> None:
    monkeypatch.setattr(patch, "MAX_LEVELS", 1)
    assert asyncio.run(patch.descendants(FakeSession(), TREE["main"], _plenty())) is None


def test_a_root_comes_with_its_chain_to_the_document() -> None:
    session = FakeSession()
    settled = asyncio.run(patch.subtree_of(session, {"nodes": _chain("main")}, _plenty()))
    assert settled is not None
    subtree, chain = settled
    assert [n["nodeId"] for n in chain] == ["main", "doc"]
    assert subtree[0]["nodeId"] == "main"


def test_a_root_outside_the_tree_is_read_from_its_nearest_ancestor_in_it() -> None:
    # A root whose node its parent does not list as a child (a plain <span>'s text hangs under
    # the parent's node): read from the parent.
    orphan = {"nodeId": "span", "childIds": []}
    settled = asyncio.run(patch.subtree_of(FakeSession(), {"nodes": [orphan, *_chain("item1")]}, _plenty()))
    assert settled is not None
    subtree, chain = settled
    assert chain[0]["nodeId"] == "item1"
    assert [n["nodeId"] for n in subtree] == ["item1", "text1"]


def test_no_node_below_the_document_means_a_full_read() -> None:
    assert asyncio.run(patch.subtree_of(FakeSession(), {"nodes": [TREE["doc"]]}, _plenty())) is None
    assert asyncio.run(patch.subtree_of(FakeSession(), {"nodes": []}, _plenty())) is None


def test_a_subtree_larger_than_the_budget_is_left_to_a_full_read() -> None:
    # main's subtree has 6 nodes: a budget of 5 is overdrawn once the third level is in.
    session = FakeSession()
    assert asyncio.run(patch.descendants(session, TREE["main"], patch.NodeBudget(5))) is None
    assert asyncio.run(patch.descendants(FakeSession(), TREE["main"], patch.NodeBudget(6))) is not None


def test_the_budget_is_a_share_of_the_page_and_the_old_subtrees_predict_the_reads() -> None:
    records = [{"nodeId": str(i), "childIds": [], "backendDOMNodeId": 100 + i} for i in range(4000)]
    assert patch.node_budget(records).left == 4000 // patch.PATCH_SHARE
    assert patch.node_budget(records[:10]).left == patch.MIN_NODE_BUDGET
    # root 100 holds 1..3 below it; 200 is not in the tree; 103 is a leaf
    tree = [{"nodeId": "r", "childIds": ["a", "d"], "backendDOMNodeId": 100},
            {"nodeId": "a", "childIds": ["b", "c"], "backendDOMNodeId": 101},
            {"nodeId": "b", "childIds": [], "backendDOMNodeId": 102},
            {"nodeId": "c", "childIds": [], "backendDOMNodeId": 103},
            {"nodeId": "d", "childIds": [], "backendDOMNodeId": 104}]
    assert patch.old_subtree_nodes(tree, [101]) == 3
    assert patch.old_subtree_nodes(tree, [101, 104, 200]) == 4
    assert patch.old_subtree_nodes(tree, [200]) == 0
