"""GET /api/v1/tree?format=i3: the window list in i3/Sway's get_tree shape, from a real desktopd on
a real Xvfb with a window manager, so a tool written for the original Sway desktop finds a window
by class the way it did there."""

from __future__ import annotations

import pytest

from tests.support.desktopd import start_desktopd
from tests.desktopd_x11.conftest import wait_for_mapped
from tests.support.wm import wait_for_window_manager

pytestmark = pytest.mark.x11


def walk(node: dict):
    yield node
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        yield from walk(child)


def find_by_class(tree: dict, klass: str) -> list[dict]:
    """What such tools do: every container whose window has this class."""
    return [n for n in walk(tree) if (n.get("window_properties") or {}).get("class") == klass]


@pytest.fixture
def managed(window_manager, xserver, start_recorder):
    wait_for_window_manager(xserver.display)
    start_recorder("300x200+50+60", "#00ff00", "i3-managed")
    wait_for_mapped(xserver.display, "i3-managed")


def test_a_window_is_found_by_class_in_the_i3_shape(xserver, managed) -> None:
    server = start_desktopd(xserver.display)
    try:
        ours = server.request("GET", "/api/v1/tree").json()
        window = next(w for w in ours["windows"] if w["title"] == "i3-managed")
        instance, klass = window["wm_class"]
        tree = server.request("GET", "/api/v1/tree", params={"format": "i3"}).json()
        assert tree["type"] == "root" and [n["type"] for n in tree["nodes"]] == ["output"]
        workspaces = tree["nodes"][0]["nodes"]
        assert workspaces and all(w["type"] == "workspace" for w in workspaces)
        (con,) = [c for c in find_by_class(tree, klass) if c["name"] == "i3-managed"]
        assert con["window"] == window["id"] and con["pid"] == window["pid"] and con["app_id"] is None
        assert con["window_properties"] == {"class": klass, "instance": instance, "title": "i3-managed",
                                            "transient_for": None}
        frame, client = window["frame"], window["client"]
        assert con["rect"] == {k: frame[k] for k in ("x", "y", "width", "height")}
        assert con["window_rect"] == {"x": client["x"] - frame["x"], "y": client["y"] - frame["y"],
                                      "width": client["width"], "height": client["height"]}
        assert con["focused"] is window["focused"]
        bad = server.request("GET", "/api/v1/tree", params={"format": "sway"})
        assert bad.status_code == 422 and bad.json()["field"] == "format"
    finally:
        server.stop()


def test_the_default_format_is_a_setting(xserver) -> None:
    server = start_desktopd(xserver.display, env={"DESKTOPD_TREE_FORMAT": "i3"})
    try:
        assert server.request("GET", "/api/v1/tree").json()["type"] == "root"
        assert "windows" in server.request("GET", "/api/v1/tree", params={"format": "desktopd"}).json()
    finally:
        server.stop()
