"""Unit tests of axtree: CDP's AX nodes as records (shapes, dropped text boxes, links), pre-order,
the interesting filter."""

from __future__ import annotations

from sidecar.layout.records import axtree

from .unit_inputs import TREE, _ax


def test_ax_records_states_properties_and_dropped_text_boxes():
    records = axtree.ax_records(TREE, "F", "p:")
    by_id = {r["nodeId"]: r for r in records}
    assert "p:6" not in by_id
    ok = by_id["p:3"]
    assert ok["states"] == {"focusable": True, "pressed": "mixed"}
    # CDP's list as Chromium gave it (the reference contract), our plain scalars beside it.
    assert ok["properties"] == TREE[2]["properties"]
    assert ok["propertyValues"] == {"level": 2}
    assert ok["parentId"] == "p:2" and ok["frameId"] == "F"
    assert "value" not in ok and "description" not in ok and ok["valueText"] is None


def test_ax_records_keep_cdp_value_and_description_objects_without_sources():
    node = _ax("7", "textbox", "1", name="Query", backend=7)
    node["value"] = {"type": "string", "value": "abc"}
    node["description"] = {"type": "computedString", "value": "Search the site",
                           "sources": [{"type": "attribute", "attribute": "title"}]}
    node["ignoredReasons"] = [{"name": "x", "value": {"type": "boolean", "value": True}}]
    [record] = axtree.ax_records([node], "F")
    assert record["value"] == {"type": "string", "value": "abc"} and record["valueText"] == "abc"
    assert record["description"] == {"type": "computedString", "value": "Search the site"}
    assert record["descriptionText"] == "Search the site"
    assert record["ignoredReasons"] == node["ignoredReasons"]
    assert "sources" in node["description"]          # Chromium's reply is not mutated


def test_ax_records_leave_out_links_to_dropped_nodes_and_take_the_target_id():
    records = axtree.ax_records(TREE, "F", "p:", target_id="T")
    by_id = {r["nodeId"]: r for r in records}
    # The button's only child was its InlineTextBox: no link to a node that is not reported.
    assert by_id["p:3"]["childIds"] == [] and by_id["p:2"]["childIds"] == ["p:3", "p:4"]
    assert all(r["targetId"] == "T" and list(r)[-1] == "targetId" for r in records)
    # A record is final when made: ordering the tree edits none of them.
    links = [(r["childIds"], r["parentId"]) for r in records]
    ordered = axtree.preorder(records)
    assert all(r["childIds"] is children and r["parentId"] == parent
               for r, (children, parent) in zip(records, links))
    assert [r["nodeId"] for r in ordered] == ["p:1", "p:2", "p:3", "p:4", "p:5"]


def test_interesting_filter_reparents_children_and_keeps_order():
    records = axtree.preorder(axtree.ax_records(TREE, "F"))
    kept = axtree.filter_tree(records, axtree.is_interesting)
    assert [(r["nodeId"], r["parentId"], r["childIds"]) for r in kept] == [
        ("1", None, ["3", "5"]), ("3", "1", []), ("5", "1", [])]
    assert [r["childIds"] for r in records if r["nodeId"] == "3"] == [[]]   # dangling id removed
    links = axtree.filter_tree(records, axtree.has_role(frozenset({"link"})))
    assert [(r["nodeId"], r["parentId"]) for r in links] == [("5", None)]
    head = axtree.truncate(kept, 2)
    assert [(r["nodeId"], r["childIds"]) for r in head] == [("1", ["3"]), ("3", [])]


# -- snapshot placement ---------------------------------------------------------------------

def test_ax_records_keep_role_and_name_as_ax_values_without_sources():
    nodes = [_ax("1", "RootWebArea", children=["2"], name="Doc", backend=1),
             _ax("2", "button", "1", name="OK", backend=2)]
    nodes[0]["role"]["type"] = "internalRole"
    nodes[1]["name"]["sources"] = [{"type": "contents"}]
    root, button = axtree.ax_records(nodes, "F")
    assert root["role"] == {"type": "internalRole", "value": "RootWebArea"}
    assert button["role"] == {"type": "role", "value": "button"}
    assert button["name"] == {"type": "computedString", "value": "OK"}      # no "sources"
    unnamed = axtree.ax_records([{"nodeId": "9", "ignored": True}], "F")[0]
    assert unnamed["role"] == {"type": "role", "value": ""}
    assert unnamed["name"] == {"type": "computedString", "value": ""}
    assert axtree.has_role(frozenset({"button"}))(button) and not axtree.is_interesting(unnamed)
