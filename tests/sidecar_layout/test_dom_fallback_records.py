"""Unit tests of dom_fallback: records from the DOM snapshot with the accessibility tree's shapes
and roles."""

from __future__ import annotations


from sidecar.layout.records import axtree
from sidecar.layout.records.dom_fallback import dom_records
from sidecar.layout.snapshot.dom_boxes import Snapshot

from .unit_inputs import TREE


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
