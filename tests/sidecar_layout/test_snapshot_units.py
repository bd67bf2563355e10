"""Unit tests of snapshot and capture placement: frames placed in the tab, fixed content, many
nodes at once, insets under CSS zoom."""

from __future__ import annotations


import pytest

from sidecar.layout.reading import capture
from sidecar.layout.geometry.spaces import Placement, Rect
from sidecar.layout.snapshot.dom_boxes import TOP_LEVEL, DocumentPlacement

from .unit_inputs import _boxed_snapshot, _snapshot


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


def test_placements_come_from_each_records_own_session():
    snap = _snapshot()
    placed = {"T": (snap, snap.placements(TOP_LEVEL))}
    records = [{"nodeId": "a", "backendDOMNodeId": 3}, {"nodeId": "b", "backendDOMNodeId": 12},
               {"nodeId": "c", "backendDOMNodeId": 999}, {"nodeId": "d"}]
    fresh = capture.placements(records, ["T"] * 4, placed)
    assert fresh[0].fixed and fresh[1].rect == Rect(125, 225, 50, 20) and fresh[2:] == [None, None]
    # A record of a session not placed (e.g. an iframe whose owner was not found) has none.
    mixed = capture.placements(records, ["T", "U", "T", "T"], placed)
    assert mixed[0] == fresh[0] and mixed[1] is None and mixed[2:] == [None, None]
    assert capture.placements(records, ["U"] * 4, placed) == [None] * 4

@pytest.mark.parametrize("zoom, factor", [("1", 1.0), ("1.5", 1.5), ("200%", 2.0)])
def test_snapshot_insets_are_border_plus_padding_scaled_by_css_zoom(zoom, factor):
    snap = _boxed_snapshot(zoom)
    placed = snap.placements(TOP_LEVEL)
    button = snap.placement_of(3, placed)
    assert button.insets == pytest.approx((5 * factor, 7 * factor, 5 * factor, 7 * factor))
    assert snap.placement_of(4, placed).insets is None    # text: its parent's style, not its own
    assert snap.placement_of(1, placed).insets is None
