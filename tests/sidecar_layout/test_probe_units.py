"""Unit tests of probe: what the in-page probe's reply says about the tab."""

from __future__ import annotations


import pytest


@pytest.mark.parametrize("state, visible", [("visible", True), ("hidden", False), (None, None)])
def test_probe_reports_whether_the_tab_is_in_front(state, visible):
    from sidecar.layout.probing.probe import parse_probe
    value = {"frames": ["t:0:0"], "dpr": 1} | ({} if state is None else {"visibility": state})
    assert parse_probe({"result": {"value": value}}).visible is visible


def _metrics(layout_y: int, visual_y: float, offset_y: float = 0.0) -> dict:
    """Page.getLayoutMetrics as Chromium gives them: the layout viewport's page offset in whole
    CSS px, the visual viewport's exact."""
    return {"cssLayoutViewport": {"pageX": 0, "pageY": layout_y},
            "cssVisualViewport": {"pageX": 0.0, "pageY": visual_y, "offsetX": 0.0, "offsetY": offset_y}}


def test_a_sticky_capture_holds_only_at_its_exact_scroll():
    from sidecar.layout.reading.capture import Capture
    # At 150 % zoom one device px of scroll is 0.67 CSS px; CDP says pageY 1 for it.
    capture = Capture(signal=(), records=[], placements=[], source="accessibility", sticky=True,
                      sessions=[], scroll=(0.0, 0.6666666865348816))
    assert capture.holds_at(_metrics(1, 0.6666666666666666))
    assert not capture.holds_at(_metrics(0, 0.0))
    assert not capture.holds_at(_metrics(1, 1.3333333333333333))
    # Pinch zoom moves the visual viewport inside the layout viewport, not the scroll.
    assert capture.holds_at(_metrics(1, 10.666666666666666, offset_y=10.0))


def test_an_open_select_popup_makes_the_page_unprovable():
    from sidecar.layout.probing.probe import parse_probe
    from sidecar.layout.probing.change_signal import Probed, unprovable
    closed = parse_probe({"result": {"value": {"frames": ["t:0:0"], "dpr": 1}}})
    opened = parse_probe({"result": {"value": {"frames": ["t:0:0"], "dpr": 1, "popupOpen": True}}})
    assert not unprovable(Probed(closed, {}, [], None, 0.0))
    assert unprovable(Probed(opened, {}, [], None, 0.0))
    assert unprovable(Probed(closed, {}, [opened], None, 0.0))       # in an iframe
class _Session:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict, float | None]] = []

    async def send(self, method, params=None, *, timeout=None):
        self.calls.append((method, params, timeout))
        return {"result": {"value": 1}}


def _probe_result(settling: bool, visibility: str = "visible"):
    from sidecar.layout.probing.probe import parse_probe
    value = {"frames": ["t:1:0"], "dpr": 1, "visibility": visibility, "settling": settling}
    return parse_probe({"result": {"value": value}})


@pytest.mark.parametrize("page_due, child_due, visibility, waited", [
    (True, False, "visible", ["page"]), (False, True, "visible", ["child"]),
    (True, True, "visible", ["page", "child"]), (False, False, "visible", []),
    (True, True, "hidden", [])])          # a hidden tab has no animation frames: no wait
async def test_a_read_waits_only_for_sessions_with_a_recount_due(page_due, child_due, visibility, waited):
    from sidecar.layout.probing.probe import SETTLE_PARAMS
    from sidecar.layout.probing.change_signal import SETTLE_WAIT_S, Probed, settled
    page, child = _Session(), _Session()
    probed = Probed(_probe_result(page_due, visibility), {}, [_probe_result(child_due)], None, 0.0)
    assert await settled(page, [child], probed) is bool(waited)
    for name, session in (("page", page), ("child", child)):
        expected = [("Runtime.evaluate", SETTLE_PARAMS, SETTLE_WAIT_S)] if name in waited else []
        assert session.calls == expected
