"""GET /api/v1/tree?format=i3: the window list in i3/Sway's get_tree shape, from a real desktopd on
a real Xvfb with a window manager, so a tool written for the original Sway desktop finds a window
by class the way it did there."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from Xlib import X, Xatom
from Xlib import display as xdisplay

from testbed.desktopd import start_desktopd
from testbed.wm import wait_for_window_manager
from tests.desktopd_x11.conftest import wait_for_mapped

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


@pytest.fixture
def x_client(xserver) -> Iterator[xdisplay.Display]:
    """A plain X client of the test's own, for windows of a given EWMH type (closed at the end)."""
    dpy = xdisplay.Display(xserver.display)
    try:
        yield dpy
    finally:
        dpy.close()


def typed_window(dpy: xdisplay.Display, title: str, window_type: str,
                 transient_for: int | None = None) -> int:
    """Maps a window of EWMH type ``window_type`` (e.g. DIALOG), optionally transient for another."""
    screen = dpy.screen()
    window = screen.root.create_window(400, 300, 200, 120, 0, screen.root_depth, X.InputOutput,
                                       background_pixel=screen.white_pixel)
    window.set_wm_name(title)
    window.set_wm_class("typed", "Typed")
    window.change_property(dpy.intern_atom("_NET_WM_WINDOW_TYPE"), Xatom.ATOM, 32,
                           [dpy.intern_atom(f"_NET_WM_WINDOW_TYPE_{window_type}")])
    if transient_for is not None:
        window.change_property(Xatom.WM_TRANSIENT_FOR, Xatom.WINDOW, 32, [transient_for])
    window.map()
    dpy.flush()
    return window.id


def containers(tree: dict, kind: str) -> Callable[[str], list[dict]]:
    """The workspace children of ``kind`` (nodes or floating_nodes) with this title."""
    workspaces = tree["nodes"][0]["nodes"]
    return lambda title: [c for w in workspaces for c in w[kind] if c["name"] == title]


def test_application_windows_tile_and_dialogs_float(xserver, managed, x_client) -> None:
    """As on the original Sway desktop: an application's window is a tiled con (where a client
    such as the seed's find_chromium_window looks for it), maximised or not; a dialog transient
    for it and a utility window float."""
    server = start_desktopd(xserver.display)
    try:
        app = next(w for w in server.request("GET", "/api/v1/tree").json()["windows"]
                   if w["title"] == "i3-managed")
        typed_window(x_client, "i3-dialog", "DIALOG", transient_for=app["id"])
        typed_window(x_client, "i3-utility", "UTILITY")
        wait_for_mapped(xserver.display, "i3-dialog")
        wait_for_mapped(xserver.display, "i3-utility")
        ours = {w["title"]: w for w in server.request("GET", "/api/v1/tree").json()["windows"]}
        assert (ours["i3-managed"]["window_type"], ours["i3-managed"]["transient_for"]) == ("normal", None)
        assert (ours["i3-dialog"]["window_type"], ours["i3-dialog"]["transient_for"]) == ("dialog", app["id"])
        assert (ours["i3-utility"]["window_type"], ours["i3-utility"]["transient_for"]) == ("utility", None)

        tree = server.request("GET", "/api/v1/tree", params={"format": "i3"}).json()
        tiled, floating = containers(tree, "nodes"), containers(tree, "floating_nodes")
        (con,) = tiled("i3-managed")
        assert con["type"] == "con" and con["window"] == app["id"] and not floating("i3-managed")
        (dialog,) = floating("i3-dialog")
        assert dialog["type"] == "floating_con" and dialog["window_type"] == "dialog"
        assert dialog["window_properties"]["transient_for"] == app["id"] and not tiled("i3-dialog")
        (utility,) = floating("i3-utility")
        assert utility["type"] == "floating_con" and not tiled("i3-utility")

        reply = server.request("POST", f"/api/v1/windows/{app['id']}/maximize")
        assert reply.status_code == 200 and reply.json()["window"]["maximized"], reply.text
        tree = server.request("GET", "/api/v1/tree", params={"format": "i3"}).json()
        (con,) = containers(tree, "nodes")("i3-managed")
        assert con["type"] == "con" and con["maximized"] is True
    finally:
        server.stop()
