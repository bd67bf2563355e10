"""Unit tests of probe: what the in-page probe's reply says about the tab."""

from __future__ import annotations


import pytest


@pytest.mark.parametrize("state, visible", [("visible", True), ("hidden", False), (None, None)])
def test_probe_reports_whether_the_tab_is_in_front(state, visible):
    from sidecar.layout.probe import parse_probe
    value = {"frames": ["t:0:0"], "dpr": 1} | ({} if state is None else {"visibility": state})
    assert parse_probe({"result": {"value": value}}).visible is visible
