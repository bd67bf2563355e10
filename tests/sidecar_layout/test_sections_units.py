"""Unit tests of a read in sections (no browser): one ancestor read per group of sibling
sections, and a section its group's ancestors do not cover read with its own."""

from __future__ import annotations

from sidecar.layout import axtree, sections
from sidecar.layout.patch import ANCESTORS, QUERY, parse_groups


def _node(node_id: str, backend: int, children: tuple[str, ...] = (), parent: str | None = None) -> dict:
    node = {"nodeId": node_id, "ignored": False, "role": {"type": "role", "value": "generic"},
            "childIds": list(children), "backendDOMNodeId": backend}
    if parent is not None:
        node["parentId"] = parent
    return node


# The accessibility tree: document 1 > (2 > (10 > 11, 20), 3 > 30). The sections 10, 20 and 30
# come as one group (one parent element), but 30's node hangs under node 3, not 2.
DOC, BODY, OTHER = _node("1", 1, ("2", "3")), _node("2", 2, ("10", "20"), "1"), _node("3", 3, ("30",), "1")
SUBTREES = {10: [_node("10", 10, ("11",), "2"), _node("11", 11, (), "10")],
            20: [_node("20", 20, (), "2")], 30: [_node("30", 30, (), "3")]}
CHAINS = {10: [SUBTREES[10][0], BODY, DOC], 20: [SUBTREES[20][0], BODY, DOC],
          30: [SUBTREES[30][0], OTHER, DOC]}


def spy_on_whole_ordering(monkeypatch) -> list[int]:
    """The sizes of the trees axtree.preorder orders whole from now on (it still does)."""
    calls: list[int] = []
    whole = axtree.preorder
    monkeypatch.setattr(axtree, "preorder", lambda records: calls.append(len(records)) or whole(records))
    return calls


class FakeSession:
    target_id = "T"

    def __init__(self, chains: dict[int, list[dict]] | None = None) -> None:
        self.sent: list[tuple[str, int]] = []
        self.chains = CHAINS if chains is None else chains

    async def send(self, method: str, params: dict) -> dict:
        backend = params["backendNodeId"]
        self.sent.append((method, backend))
        return {"nodes": (SUBTREES if method == QUERY else self.chains)[backend]}


async def test_one_ancestor_read_per_group_and_a_late_one_for_a_section_it_misses():
    session = FakeSession()
    reads = sections.start_reads(session, [[10, 20, 30]])
    made: list[list[str]] = []
    records = await sections.sectioned_records(session, reads, "F",
                                               lambda part: made.append([r["nodeId"] for r in part]))
    assert [r["nodeId"] for r in records] == ["1", "2", "10", "11", "20", "3", "30"]
    assert session.sent == [(ANCESTORS, 10), (QUERY, 10), (QUERY, 20), (QUERY, 30), (ANCESTORS, 30)]
    # 20 settled with 10's ancestors; 30 only with its own, read after whatever the caller
    # sent behind the first reads (its check that nothing changed): it must check again.
    assert reads.late
    assert made == [["10", "11", "2", "1"], ["20"], ["30", "3"]]


async def test_a_group_whose_sections_share_the_parent_needs_no_late_read():
    session = FakeSession()
    reads = sections.start_reads(session, [[10, 20]])
    records = await sections.sectioned_records(session, reads, "F", lambda _part: None)
    # Node 3 (and 30) were never read: the tree is not whole, so it is not used.
    assert records is None and not reads.late
    assert session.sent == [(ANCESTORS, 10), (QUERY, 10), (QUERY, 20)]


async def test_blocks_give_the_order_of_a_whole_re_ordering(monkeypatch):
    calls = spy_on_whole_ordering(monkeypatch)
    session = FakeSession()
    reads = sections.start_reads(session, [[30], [20, 10]])   # not in document order
    records = await sections.sectioned_records(session, reads, "F", lambda _part: None)
    assert [r["nodeId"] for r in records] == ["1", "2", "10", "11", "20", "3", "30"]
    assert calls == []                  # put together from the sections' blocks


async def test_a_node_linked_from_above_into_a_block_falls_back_to_a_whole_re_ordering(monkeypatch):
    # Node 2 lists 11, which is inside section 10's block, not a section's top: the blocks
    # cannot say where 11 goes, so the tree is ordered whole (which finds it reached twice).
    calls = spy_on_whole_ordering(monkeypatch)
    body = _node("2", 2, ("10", "11", "20"), "1")
    chains = {**CHAINS, 10: [SUBTREES[10][0], body, DOC], 20: [SUBTREES[20][0], body, DOC]}
    session = FakeSession(chains)
    reads = sections.start_reads(session, [[10, 20], [30]])
    records = await sections.sectioned_records(session, reads, "F", lambda _part: None)
    assert calls == [7]
    assert [r["nodeId"] for r in records] == ["1", "2", "10", "11", "20", "3", "30"]


def test_beside_first_takes_the_group_ancestors_only_for_a_child_of_their_parent():
    chain = {"nodes": CHAINS[10]}
    assert sections.beside_first({"nodes": SUBTREES[20]}, chain, 20) == (SUBTREES[20], CHAINS[20])
    assert sections.beside_first({"nodes": SUBTREES[30]}, chain, 30) is None     # under 3
    assert sections.beside_first({"nodes": SUBTREES[20]}, chain, 21) is None     # not its node
    assert sections.beside_first({"nodes": []}, chain, 20) is None


def test_groups_are_separated_by_null_items():
    def item(backend: int) -> dict:
        return {"type": "node", "value": {"backendNodeId": backend, "nodeType": 1}}

    reply = {"result": {"type": "object", "deepSerializedValue": {"type": "array", "value": [
        item(4), item(5), {"type": "null"}, item(9)]}}}
    assert parse_groups(reply) == [[4, 5], [9]]
    broken = {"result": {"deepSerializedValue": {"type": "array", "value": [item(4), {"type": "number", "value": 1}]}}}
    assert parse_groups(broken) is None
    assert parse_groups({"exceptionDetails": {}}) is None
