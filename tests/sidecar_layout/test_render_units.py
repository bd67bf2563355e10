"""Unit tests of render and encoding: each node's JSON for a view, reused, and read back as
clients parse it."""

from __future__ import annotations

import json

import pytest

from sidecar.layout.records import axtree
from sidecar.layout.output import render
from sidecar.layout.output.encoding import NodeList, dumps, dumps_layout
from sidecar.layout.geometry.spaces import Placement, Rect

from .unit_inputs import TREE, _view


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


def test_node_lists_of_one_cache_decode_only_the_nodes_whose_json_is_new():
    records = axtree.preorder(axtree.ax_records(TREE, "F"))
    placements = [Placement(Rect(0, 10.0 * i, 100, 10)) for i in range(len(records))]
    cache = render.NodeCache()
    first = NodeList(render.nodes(records, placements, _view(), cache), cache.decoded)
    before = list(first)
    # One node moved: the next answer's other nodes are the same dicts, the moved one is new.
    placements[2] = Placement(Rect(0, 500, 100, 10))
    second = NodeList(render.nodes(records, placements, _view(), cache), cache.decoded)
    after = list(second)
    assert after == [json.loads(j) for j in second.json]
    assert after[2]["bounds"]["y"] == 500 and before[2]["bounds"]["y"] == 20
    assert all(a is b for i, (a, b) in enumerate(zip(before, after)) if i != 2)
    assert after[2] is not before[2]
    # Only the last answer's nodes are kept.
    assert len(cache.decoded.by_json) == len(records)
