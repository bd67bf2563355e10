"""Units of the agent contract on hand-made /layout nodes: refs, the tree, the rendering."""

from __future__ import annotations

import pytest

from sidecar.agent.key_combos import KeyError_, parse_combo
from sidecar.agent.refs import ElementKey, RefTable
from sidecar.agent.tree_text import LineCache, RenderOptions, render
from sidecar.agent.tree import agent_nodes


def node(node_id: str, role: str, name: str = "", children: tuple[str, ...] = (), parent: str | None = None,
         backend: int = 0, frame: str = "F", **extra: object) -> dict:
    out = {"nodeId": node_id, "role": {"type": "role", "value": role}, "name": {"value": name},
           "childIds": list(children), "backendDOMNodeId": backend or int(node_id.split(":")[-1]),
           "frameId": frame, "targetId": "T", "states": {}, "propertyValues": {}, **extra}
    if parent:
        out["parentId"] = parent
    return out


PAGE = [node("1", "RootWebArea", "page", ("2", "3", "6")),
        node("2", "heading", "Title", ("4",), "1", propertyValues={"level": 1}),
        node("4", "StaticText", "Title", (), "2"),
        node("3", "generic", "", ("5",), "1"),
        node("5", "button", "Go", (), "3", states={"disabled": True}),
        node("6", "Iframe", "", ("f:7",), "1"),
        node("f:7", "RootWebArea", "inner", ("f:8",), "6", frame="G"),
        node("f:8", "textbox", "Email", (), "f:7", frame="G", valueText="a@b")]


def tree(table: RefTable, loaders: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return agent_nodes(PAGE, loaders or {"F": "L1", "G": "L2"}, table)


def test_refs_prefixed_per_frame_and_stable() -> None:
    table = RefTable("F")
    text = render(tree(table), RenderOptions(), None).text
    assert text.splitlines() == ['- heading "Title" [ref=e1] [level=1]',
                                 '- button "Go" [ref=e2] [disabled]',
                                 '- iframe [ref=e3]',
                                 '  - textbox "Email" [ref=f1e1]: "a@b"']
    assert render(tree(table), RenderOptions(), None).text == text


def test_a_new_document_gets_new_refs_and_a_restored_one_its_old_ones() -> None:
    table = RefTable("F")
    tree(table)
    tree(table, {"F": "L1", "G": "L3"})          # the iframe navigated
    # The old ref stays bound to its document (resolve refuses it while the frame shows L3).
    assert table.lookup("f1e1") == ElementKey("T", "G", 8, "L2")
    assert table.lookup("e2") is not None        # the page's own refs live on
    assert "f1e2" in render(tree(table, {"F": "L1", "G": "L3"}), RenderOptions(), None).text
    # The back/forward cache restores document L2: its element has its first ref again.
    assert "f1e1" in render(tree(table, {"F": "L1", "G": "L2"}), RenderOptions(), None).text


def test_budget_depth_interactive_diff() -> None:
    table = RefTable("F")
    roots = tree(table)
    cut = render(roots, RenderOptions(max_chars=300), None)
    assert cut.truncated and "truncated at max_chars=300" in cut.text and len(cut.text) <= 300
    assert "below]" in render(roots, RenderOptions(depth=1), None).text
    assert "heading" not in render(roots, RenderOptions(interactive=True), None).text
    first = render(roots, RenderOptions(), None)
    again = render(roots, RenderOptions(diff=True), first.hashes)
    assert "- iframe [ref=e3] [unchanged]" in again.text and "Email" not in again.text


def test_a_tabs_line_cache_reformats_only_changed_nodes_and_new_refs() -> None:
    lines, table = LineCache(), RefTable("F")
    nodes = [dict(n) for n in PAGE]
    first = render(agent_nodes(nodes, {"F": "L1", "G": "L2"}, table), RenderOptions(), None, lines)
    assert first.text == render(tree(RefTable("F")), RenderOptions(), None).text
    # The button renamed (a new node dict), the rest the same dicts: the same text as uncached.
    nodes[4] = {**nodes[4], "name": {"value": "Renamed"}}
    second = render(agent_nodes(nodes, {"F": "L1", "G": "L2"}, table), RenderOptions(), None, lines)
    assert '- button "Renamed" [ref=e2] [disabled]' in second.text.splitlines()
    assert second.text == first.text.replace('"Go"', '"Renamed"')
    # The iframe's document replaced under the same node dicts: its refs are new, so its lines.
    third = render(agent_nodes(nodes, {"F": "L1", "G": "L3"}, table), RenderOptions(), None, lines)
    assert '  - textbox "Email" [ref=f1e2]: "a@b"' in third.text.splitlines()


def test_key_combos() -> None:
    assert parse_combo("Control+Shift+t").xdotool == "ctrl+shift+t"
    assert parse_combo("Enter").key == "Enter" and parse_combo("ctrl++").keysym == "plus"
    with pytest.raises(KeyError_):
        parse_combo("Hyper+x")
