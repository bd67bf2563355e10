"""Unit tests of probe: what the in-page probe's reply says about the tab."""

from __future__ import annotations


import pytest


@pytest.mark.parametrize("state, visible", [("visible", True), ("hidden", False), (None, None)])
def test_probe_reports_whether_the_tab_is_in_front(state, visible):
    from sidecar.layout.probe import parse_probe
    value = {"frames": ["t:0:0"], "dpr": 1} | ({} if state is None else {"visibility": state})
    assert parse_probe({"result": {"value": value}}).visible is visible


class _Session:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict, float | None]] = []

    async def send(self, method, params=None, *, timeout=None):
        self.calls.append((method, params, timeout))
        return {"result": {"value": 1}}


def _probe_result(settling: bool, visibility: str = "visible"):
    from sidecar.layout.probe import parse_probe
    value = {"frames": ["t:1:0"], "dpr": 1, "visibility": visibility, "settling": settling}
    return parse_probe({"result": {"value": value}})


@pytest.mark.parametrize("page_due, child_due, visibility, waited", [
    (True, False, "visible", ["page"]), (False, True, "visible", ["child"]),
    (True, True, "visible", ["page", "child"]), (False, False, "visible", []),
    (True, True, "hidden", [])])          # a hidden tab has no animation frames: no wait
async def test_a_read_waits_only_for_sessions_with_a_recount_due(page_due, child_due, visibility, waited):
    from sidecar.layout.probe import SETTLE_PARAMS
    from sidecar.layout.probing import SETTLE_WAIT_S, Probed, settled
    page, child = _Session(), _Session()
    probed = Probed(_probe_result(page_due, visibility), {}, [_probe_result(child_due)], None, 0.0)
    assert await settled(page, [child], probed) is bool(waited)
    for name, session in (("page", page), ("child", child)):
        expected = [("Runtime.evaluate", SETTLE_PARAMS, SETTLE_WAIT_S)] if name in waited else []
        assert session.calls == expected
