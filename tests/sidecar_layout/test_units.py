"""Unit tests of the layout builder's pure parts: options, geometry, tree filters, snapshot
placement and the DOM fallback (no browser; inputs shaped like Chromium's replies)."""

from __future__ import annotations

import json

import pytest

from desktopd.web.errors import ApiError
from sidecar.layout import axtree, capture, render
from sidecar.layout.encoding import NodeList, dumps, dumps_layout
from sidecar.layout.dom_fallback import dom_records
from sidecar.layout.geometry import Placement, Rect, View, WindowMetrics, viewport_origin
from sidecar.layout.options import LayoutOptions
from sidecar.layout.snapshot import TOP_LEVEL, DocumentPlacement, Snapshot


# -- options -------------------------------------------------------------------------------

def test_options_parse_every_parameter():
    options = LayoutOptions.from_query({"tab": " ABC ", "interesting": "true", "roles": "Button, link",
                                        "max_nodes": "50", "fresh": "yes"})
    assert options == LayoutOptions(tab="ABC", interesting=True, roles=frozenset({"button", "link"}),
                                    max_nodes=50, fresh=True)
    assert LayoutOptions.from_query({}) == LayoutOptions()
    assert LayoutOptions.from_query({"interesting": ""}).interesting is True


@pytest.mark.parametrize("query, field", [
    ({"max_nodes": "0"}, "max_nodes"), ({"max_nodes": "-3"}, "max_nodes"),
    ({"max_nodes": "1e3"}, "max_nodes"), ({"interesting": "sometimes"}, "interesting"),
    ({"roles": " , "}, "roles"), ({"roles": "button;drop"}, "roles"), ({"tab": "  "}, "tab"),
    ({"maxnodes": "3"}, "maxnodes"), ({"fresh": "always"}, "fresh"),
])
def test_bad_options_are_422_naming_the_parameter(query, field):
    with pytest.raises(ApiError) as raised:
        LayoutOptions.from_query(query)
    assert raised.value.status == 422
    assert raised.value.field == field
    assert raised.value.body()["error"] == "invalid_field"


# -- geometry ------------------------------------------------------------------------------

def test_viewport_origin_measures_the_browser_ui():
    # 1000x700 DIP window at (30, 20); content 985+15 x 557 device px: toolbar = 700 - 557.
    window = WindowMetrics(screen_x=30, screen_y=20, outer_width=1000, outer_height=700,
                           content_width=1000, content_height=557)
    assert viewport_origin(window, 1.0) == (30, 20 + 143)


def test_viewport_origin_at_device_scale_2_with_a_window_frame():
    # A WM frame of 4 DIP on the left, right and bottom; DIP * 2 = screen pixels.
    window = WindowMetrics(screen_x=10, screen_y=5, outer_width=608, outer_height=404,
                           content_width=1200, content_height=514)
    left, top = viewport_origin(window, 2.0)
    assert left == 10 * 2 + 8
    assert top == 5 * 2 + 404 * 2 - 8 - 514


def _view(**overrides) -> View:
    values = dict(layout_x=0.0, layout_y=0.0, visual_x=0.0, visual_y=0.0, visual_width=800.0,
                  visual_height=600.0, pinch_scale=1.0, zoom=1.0, device_pixel_ratio=1.0,
                  origin_x=0.0, origin_y=0.0)
    values.update(overrides)
    return View(**values)


def test_document_viewport_screen_chain_with_scroll_zoom_and_fixed():
    view = _view(layout_x=0, layout_y=300, visual_x=0, visual_y=300, device_pixel_ratio=1.5,
                 zoom=1.5, origin_x=30, origin_y=163)
    box = Placement(Rect(100, 400, 50, 20))
    viewport = view.document_to_viewport(view.to_document(box))
    assert viewport == Rect(100, 100, 50, 20)
    assert view.viewport_to_screen(viewport) == Rect(180, 313, 75, 30)
    fixed = Placement(Rect(10, 20, 30, 30), fixed=True)        # stays put in the viewport
    assert view.document_to_viewport(view.to_document(fixed)) == Rect(10, 20, 30, 30)
    assert view.to_document(fixed) == Rect(10, 320, 30, 30)


def test_visibility_takes_the_frame_clip_into_account():
    view = _view()
    inside = Placement(Rect(10, 10, 20, 20), clip=Rect(0, 0, 100, 100))
    clipped = Placement(Rect(10, 150, 20, 20), clip=Rect(0, 0, 100, 100))
    assert view.visible_part(inside) == Rect(10, 10, 20, 20)
    assert view.visible_part(clipped) is None
    assert view.visible_part(Placement(Rect(10, 700, 20, 20))) is None


# -- AX records and filters -------------------------------------------------------------------

def _ax(node_id, role, parent=None, children=(), name="", ignored=False, backend=None, props=()):
    node = {"nodeId": node_id, "role": {"type": "role", "value": role}, "childIds": list(children),
            "ignored": ignored, "name": {"type": "computedString", "value": name},
            "properties": [{"name": k, "value": {"type": "x", "value": v}} for k, v in props]}
    if parent is not None:
        node["parentId"] = parent
    if backend is not None:
        node["backendDOMNodeId"] = backend
    return node


TREE = [
    _ax("1", "RootWebArea", children=["2", "5"], backend=1),
    _ax("2", "generic", "1", ["3", "4"], backend=2),
    _ax("3", "button", "2", ["6"], name="OK", backend=3,
        props=[("focusable", True), ("pressed", "mixed"), ("labelledby", [1]), ("level", 2)]),
    _ax("4", "none", "2", ignored=True, backend=4),
    _ax("5", "link", "1", name="Home", backend=5),
    _ax("6", "InlineTextBox", "3"),
]


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


def _record(node_id: str, parent: str | None, children: tuple[str, ...] = ()) -> dict:
    return {"nodeId": node_id, "parentId": parent, "childIds": list(children)}


def test_subtree_preorder_orders_one_subtree_as_preorder_does():
    # 2 > (3 > 6, 4 > 5), given in another order; its top's parent (1) is not among them.
    records = [_record("2", "1", ("3", "4")), _record("4", "2", ("5",)), _record("5", "4"),
               _record("3", "2", ("6",)), _record("6", "3")]
    ordered = axtree.subtree_preorder(records)
    assert [r["nodeId"] for r in ordered] == ["2", "3", "6", "4", "5"]
    assert all(a is b for a, b in zip(ordered, sorted(records, key=ordered.index)))
    assert [r["nodeId"] for r in axtree.preorder([_record("1", None, ("2",))] + records)][1:] \
        == ["2", "3", "6", "4", "5"]


@pytest.mark.parametrize("records", [
    [_record("2", "1", ("3", "9")), _record("3", "2")],               # a child not among them
    [_record("2", "1", ("3",)), _record("3", "2"), _record("4", "2")],  # one not reached
    [_record("2", "1", ("3", "3")), _record("3", "2")],               # reached twice
    [_record("2", "1", ("3",)), _record("3", "2", ("2",))],           # a cycle
    [_record("2", "1", ("3",)), _record("3", "8")],                   # a parent outside
    [_record("2", "1"), _record("2", "1")],                           # one id twice
    [],
])
def test_subtree_preorder_is_none_unless_the_records_are_one_whole_subtree(records):
    before = [(r["childIds"], r["parentId"]) for r in records]
    assert axtree.subtree_preorder(records) is None
    assert [(r["childIds"], r["parentId"]) for r in records] == before     # nothing changed


def test_nodes_use_json_made_ahead_only_for_records_left_as_they_were():
    records = axtree.preorder(axtree.ax_records(TREE, "F", target_id="T"))
    placements = [Placement(Rect(0, 10.0 * i, 100, 10)) for i in range(len(records))]
    expected = render.nodes(records, placements, _view(), render.NodeCache())
    made = render.record_json(records)
    assert render.nodes(records, placements, _view(), render.NodeCache(), made) == expected
    # Edited after their JSON was made: a new child list, a new parent, one more member.
    records[1]["childIds"] = ["3"]
    records[3]["parentId"] = None
    records[4]["level"] = 1
    fresh = render.nodes(records, placements, _view(), render.NodeCache())
    assert render.nodes(records, placements, _view(), render.NodeCache(), made) == fresh
    assert fresh[1] != expected[1] and fresh[3] != expected[3] and fresh[4] != expected[4]
    assert fresh[0] == expected[0]


def test_nodes_found_equal_keep_the_new_objects_for_the_next_answer():
    records = axtree.preorder(axtree.ax_records(TREE, "F", target_id="T"))
    placements = [Placement(Rect(0, 10.0 * i, 100, 10)) for i in range(len(records))]
    cache = render.NodeCache()
    first = render.nodes(records, placements, _view(), cache)
    # A patch re-read the same nodes: equal records and boxes, new objects.
    again = [dict(r) for r in records]
    boxes = [Placement(Rect(p.rect.x, p.rect.y, p.rect.width, p.rect.height)) for p in placements]
    assert render.nodes(again, boxes, _view(), cache) == first
    entries = [cache.entries[r["nodeId"]] for r in again]
    assert all(e[0] is r and e[1] is b for e, r, b in zip(entries, again, boxes))
    assert all(e[2] is j for e, j in zip(entries, first))          # their JSON was reused


def test_node_list_reads_as_the_nodes_a_client_parses():
    records = axtree.preorder(axtree.ax_records(TREE, "F"))
    placements = [Placement(Rect(0.125, 10.0 * i, 100.333, 10)) for i in range(len(records))]
    node_json = render.nodes(records, placements, _view(device_pixel_ratio=2.0), render.NodeCache())
    nodes = NodeList(node_json)
    assert len(nodes) == len(records) and nodes == [json.loads(j) for j in node_json]
    assert nodes[2]["name"]["value"] == "OK" and nodes[2]["screen"]["borderBox"]["width"] == 200.67
    layout = {"source": "accessibility", "nodes": nodes}
    assert dumps_layout(layout) == dumps(layout) == dumps({"source": "accessibility",
                                                           "nodes": list(nodes)})
    with pytest.raises(TypeError):
        json.dumps(layout)          # only the sidecar's encoder knows the node list


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

def _snapshot(dpr=1.0):
    strings = ["F0", "F1", "HTML", "IFRAME", "BUTTON", "static", "fixed", "2px", "3px", "0px",
               "http://a/", "http://a/f"]
    # Document 0: html(1) > iframe(2, border 2px, padding 3px, contentDocument 1), fixed button(3)
    # Document 1 (scrolled by 10): html(11) > button(12) at (20, 30) in its own document.
    scale = dpr
    return Snapshot({"strings": strings, "documents": [
        {"frameId": 0, "documentURL": 10, "scrollOffsetX": 0, "scrollOffsetY": 100 * scale,
         "nodes": {"backendNodeId": [1, 2, 3], "parentIndex": [-1, 0, 0], "nodeName": [2, 3, 4],
                   "contentDocumentIndex": {"index": [1], "value": [1]}},
         "layout": {"nodeIndex": [0, 1, 2],
                    "bounds": [[0, 0, 800 * scale, 2000 * scale], [100 * scale, 200 * scale, 310 * scale, 160 * scale],
                               [10 * scale, 110 * scale, 40 * scale, 20 * scale]],
                    "styles": [[5, 9, 9, 9, 9], [5, 7, 7, 8, 8], [6, 9, 9, 9, 9]]}},
        {"frameId": 1, "documentURL": 11, "scrollOffsetX": 0, "scrollOffsetY": 10 * scale,
         "nodes": {"backendNodeId": [11, 12], "parentIndex": [-1, 0], "nodeName": [2, 4]},
         "layout": {"nodeIndex": [0, 1], "bounds": [[0, 0, 300 * scale, 500 * scale], [20 * scale, 30 * scale, 50 * scale, 20 * scale]],
                    "styles": [[5, 9, 9, 9, 9], [5, 9, 9, 9, 9]]}},
    ]}, dpr)


@pytest.mark.parametrize("dpr", [1.0, 3.0])
def test_iframe_content_box_and_scroll_and_fixed_placement(dpr):
    snap = _snapshot(dpr)
    placed = snap.placements(TOP_LEVEL)
    button = snap.placement_of(12, placed)
    # iframe content origin (100+2+3, 200+2+3) minus the iframe document's scroll (0, 10).
    assert button.rect == Rect(105 + 20, 205 + 30 - 10, 50, 20)
    assert button.clip == Rect(105, 205, 305, 155) and not button.fixed
    fixed = snap.placement_of(3, placed)
    assert fixed.fixed and fixed.rect == Rect(10, 10, 40, 20)   # relative to the layout viewport
    assert snap.placement_of(999, placed) is None


@pytest.mark.parametrize("dpr", [1.0, 3.0])
def test_placements_of_many_nodes_in_order(dpr):
    snap = _snapshot(dpr)
    button, nothing, fixed, unknown = snap.placements_of([12, None, 3, 999], snap.placements(TOP_LEVEL))
    assert button.rect == Rect(125, 225, 50, 20) and button.clip == Rect(105, 205, 305, 155)
    assert nothing is None and unknown is None
    assert fixed.fixed and fixed.rect == Rect(10, 10, 40, 20)
    # The tab's document drawn shifted, inside a fixed frame: every node moves with it.
    shifted = DocumentPlacement(5.0, -7.0, fixed=True, clip=Rect(0, 0, 50, 50))
    html, fixed = snap.placements_of([1, 3], snap.placements(shifted))
    assert html == Placement(Rect(5, -7, 800, 2000), True, Rect(0, 0, 50, 50))
    assert fixed.rect == Rect(15, 103, 40, 20) and fixed.fixed
    assert snap.placements_of([12], {0: TOP_LEVEL}) == [None]      # its document not placed


def test_placements_worked_out_ahead_are_taken_as_they_are():
    snap = _snapshot()
    placed = {"T": (snap, snap.placements(TOP_LEVEL))}
    records = [{"nodeId": "a", "backendDOMNodeId": 3}, {"nodeId": "b", "backendDOMNodeId": 12},
               {"nodeId": "c", "backendDOMNodeId": 999}, {"nodeId": "d"}]
    fresh = capture.placements(records, ["T"] * 4, placed)
    assert fresh[0].fixed and fresh[1].rect == Rect(125, 225, 50, 20) and fresh[2:] == [None, None]
    known = {"a": snap.placement_of(3, placed["T"][1]), "c": None}
    taken = capture.placements(records, ["T"] * 4, placed, known)
    assert taken == fresh and taken[0] is known["a"] and taken[1] is not fresh[1]


def test_dom_fallback_has_the_same_shape():
    strings = ["HTML", "BODY", "BUTTON", "#text", "Send", "A", "href", "/x", "aria-label", "Menu", "F"]
    snap = Snapshot({"strings": strings, "documents": [{
        "frameId": 10, "nodes": {
            "nodeType": [1, 1, 1, 3, 1], "nodeName": [0, 1, 2, 3, 5], "nodeValue": [-1, -1, -1, 4, -1],
            "parentIndex": [-1, 0, 1, 2, 1], "backendNodeId": [1, 2, 3, 4, 5],
            "attributes": [[], [], [], [], [6, 7, 8, 9]]},
        "layout": {"nodeIndex": [], "bounds": [], "styles": []}}]})
    records = dom_records(snap.documents[0], snap.strings)
    by_role = {r["role"]["value"]: r for r in records}
    assert by_role["button"]["name"] == {"type": "computedString", "value": "Send"}
    assert by_role["link"]["name"]["value"] == "Menu" and by_role["link"]["role"]["type"] == "role"
    assert set(by_role["button"]) == set(axtree.ax_records(TREE, "F")[0])   # targetId: builder
    assert by_role["button"]["parentId"] == by_role["generic"]["nodeId"]


# -- reference shapes: AXValue role/name, content box, tab visibility ---------------------------

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


def _boxed_snapshot(zoom: str = "1") -> Snapshot:
    # html(1) > div(2: zoom) > button(3: border 2px, padding 3px 5px) > text(4)
    strings = ["F", "HTML", "DIV", "BUTTON", "#text", "static", "0px", "2px", "3px", "5px", "1", zoom]
    none = [5, 6, 6, 6, 6, 6, 6, 6, 6, 10]
    boxed = [5, 7, 7, 9, 8, 7, 7, 9, 8, 10]       # STYLES order: left/top border, padding, ...
    return Snapshot({"strings": strings, "documents": [{
        "frameId": 0, "nodes": {"backendNodeId": [1, 2, 3, 4], "parentIndex": [-1, 0, 1, 2],
                                "nodeName": [1, 2, 3, 4], "nodeType": [1, 1, 1, 3]},
        "layout": {"nodeIndex": [0, 1, 2, 3],
                   "bounds": [[0, 0, 800, 600], [10, 10, 200, 100], [20, 20, 100, 40], [27, 25, 30, 16]],
                   "styles": [none, none[:9] + [11], boxed, boxed]}}]})


@pytest.mark.parametrize("zoom, factor", [("1", 1.0), ("1.5", 1.5), ("200%", 2.0)])
def test_snapshot_insets_are_border_plus_padding_scaled_by_css_zoom(zoom, factor):
    snap = _boxed_snapshot(zoom)
    placed = snap.placements(TOP_LEVEL)
    button = snap.placement_of(3, placed)
    assert button.insets == pytest.approx((5 * factor, 7 * factor, 5 * factor, 7 * factor))
    assert snap.placement_of(4, placed).insets is None    # text: its parent's style, not its own
    assert snap.placement_of(1, placed).insets is None


def test_content_box_insets_and_never_negative():
    from sidecar.layout.geometry import content_box
    assert content_box(20, 20, 100, 40, (5, 7, 5, 7)) == (27, 25, 86, 30)
    assert content_box(0, 0, 10, 10, (8, 8, 8, 8)) == (8, 8, 0.0, 0.0)
    assert content_box(1, 2, 3, 4, None) == (1, 2, 3, 4)


def test_dom_fallback_roles_say_internal_or_aria():
    strings = ["HTML", "BUTTON", "#text", "Go", "F"]
    snap = Snapshot({"strings": strings, "documents": [{
        "frameId": 4, "nodes": {"nodeType": [1, 1, 3], "nodeName": [0, 1, 2], "nodeValue": [-1, -1, 3],
                                "parentIndex": [-1, 0, 1], "backendNodeId": [1, 2, 3],
                                "attributes": [[], [], []]},
        "layout": {"nodeIndex": [], "bounds": [], "styles": []}}]})
    root, button = dom_records(snap.documents[0], snap.strings)
    assert root["role"] == {"type": "internalRole", "value": "RootWebArea"}
    assert button["role"] == {"type": "role", "value": "button"}
    assert button["name"] == {"type": "computedString", "value": "Go"}


@pytest.mark.parametrize("state, visible", [("visible", True), ("hidden", False), (None, None)])
def test_probe_reports_whether_the_tab_is_in_front(state, visible):
    from sidecar.layout.probe import parse_probe
    value = {"frames": ["t:0:0"], "dpr": 1} | ({} if state is None else {"visibility": state})
    assert parse_probe({"result": {"value": value}}).visible is visible
