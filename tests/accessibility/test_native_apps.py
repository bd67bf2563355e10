"""The desktop's accessibility tree on real GTK/XFCE applications: what the tree names is where a
click lands (the application reacts), its bounds are the X windows' geometry, and AT-SPI actions
work by name."""

from __future__ import annotations

import os
import signal

import pytest

from .conftest import Desktop, find, walk

pytestmark = pytest.mark.x11


def app_tree(desktop: Desktop, app: str, **params):
    return desktop.tree(app=app, interesting="true", **params)


def top_levels(tree):
    return [top for app in tree["applications"] for top in app["children"]]


def named_top(name: str):
    def found(tree):
        return next((t for t in top_levels(tree) if t["name"] == name and t["bounds"]), None)
    return found


@pytest.fixture(scope="module")
def mousepad(desktop: Desktop):
    desktop.launch("mousepad", "--disable-server")
    return desktop.wait_for(lambda tree: find(tree, role="menu", name="File"),
                            "mousepad's File menu", app="mousepad", interesting="true")


@pytest.fixture(scope="module")
def thunar(desktop: Desktop):
    desktop.launch("thunar", desktop.log_dir)
    return desktop.wait_for(lambda tree: find(tree, role="menu", name="Help"),
                            "Thunar's Help menu", app="thunar", interesting="true")


def test_menu_item_click_opens_its_menu_and_runs_it(desktop: Desktop, mousepad):
    """mousepad: tap File at its center (the menu opens: its items show), then tap New Window
    at its center (a second mousepad frame appears)."""
    frames_before = len(top_levels(app_tree(desktop, "mousepad")))
    desktop.tap(mousepad)
    new_window = desktop.wait_for(
        lambda tree: find(tree, role="menu item", name="New Window",
                          where=lambda n: "showing" in n["states"] and n["bounds"]),
        "the File menu's New Window item", app="mousepad", interesting="true")
    desktop.tap(new_window)
    desktop.wait_for(lambda tree: len([t for t in top_levels(tree) if t["role"] == "frame"]) > frames_before,
                     "a second mousepad window", app="mousepad", interesting="true")


def test_top_level_bounds_are_the_x_window_geometry(desktop: Desktop, mousepad, thunar):
    tree = desktop.tree()
    checked = 0
    for top in top_levels(tree):
        if not top.get("window") or not top["bounds"]:
            continue
        window = desktop.desktopd.request("GET", f"/api/v1/windows/{top['window']['id']}").json()
        rects = [{k: window[part][k] for k in ("x", "y", "width", "height")} for part in ("frame", "client")]
        assert top["bounds"] in rects, (top["name"], top["bounds"], rects)
        checked += 1
    names = {top["name"] for top in top_levels(tree) if top.get("window")}
    assert checked >= 2 and any("Mousepad" in n for n in names) and any("Thunar" in n for n in names)


def test_every_showing_node_lies_inside_its_window(desktop: Desktop, thunar):
    tree = app_tree(desktop, "thunar")
    for top in top_levels(tree):
        if not top.get("window"):
            continue
        frame = top["bounds"]
        for node in walk(top["children"]):
            if node["bounds"] is None or "showing" not in node["states"] or node["role"] == "menu item":
                continue
            c = node["center"]
            assert frame["x"] <= c["x"] < frame["x"] + frame["width"], node
            assert frame["y"] <= c["y"] < frame["y"] + frame["height"], node


def test_xfce_menu_item_and_native_dialog_button(desktop: Desktop, thunar):
    """Thunar (XFCE): Help -> About by clicks at tree centers opens the About dialog; its Close
    button, clicked the same way, closes it."""
    desktop.tap(thunar)
    about = desktop.wait_for(
        lambda tree: find(tree, role="menu item", where=lambda n: n["name"].startswith("About")
                          and "showing" in n["states"] and n["bounds"]),
        "Thunar's About menu item", app="thunar", interesting="true")
    desktop.tap(about)
    dialog = desktop.wait_for(lambda tree: next((t for t in top_levels(tree) if t["role"] == "dialog"
                                                 and t["bounds"]), None),
                              "the About dialog", app="thunar", interesting="true")
    assert dialog["window"] is not None, "the dialog is tied to its X window"
    close = find(dialog["children"], role="push button", name="Close")
    assert close is not None and close["bounds"], dialog
    desktop.tap(close)
    desktop.wait_for(lambda tree: not any(t["id"] == dialog["id"] for t in top_levels(tree)),
                     "the About dialog closing", app="thunar", interesting="true")


def test_appfinder_dialog_button_opens_preferences(desktop: Desktop):
    desktop.launch("xfce4-appfinder", "--collapsed")
    preferences = desktop.wait_for(lambda tree: find(tree, role="push button", name="Preferences",
                                                     where=lambda n: n["bounds"]),
                                   "appfinder's Preferences button", app="xfce4-appfinder", interesting="true")
    desktop.tap(preferences)
    desktop.wait_for(lambda tree: len([t for t in top_levels(tree) if t["bounds"]]) >= 2,
                     "the Preferences dialog", app="xfce4-appfinder", interesting="true")


def test_action_by_name_focus_and_errors(desktop: Desktop, mousepad):
    request = desktop.desktopd.request
    edit = find(app_tree(desktop, "mousepad"), role="menu", name="Edit")
    assert edit["actions"] == ["Click"]
    resp = request("POST", f"/api/v1/accessibility/{edit['id']}/do", json={"action": "click"})
    assert resp.status_code == 200 and resp.json()["ok"] is True, resp.text
    desktop.wait_for(lambda tree: find(tree, role="menu item", where=lambda n: n["name"].startswith("Preferences")
                                       and "showing" in n["states"]),
                     "the Edit menu opened by its action", app="mousepad", interesting="true")
    desktop.desktopd.request("POST", "/api/v1/keyboard", json={"keys": "Escape"})

    resp = request("POST", f"/api/v1/accessibility/{edit['id']}/do", json={"action": "explode"})
    assert resp.status_code == 422 and resp.json()["field"] == "action"
    assert "explode" in resp.json()["detail"]["message"] and "Click" in resp.json()["detail"]["available"]

    text = find(app_tree(desktop, "mousepad"), role="text", where=lambda n: "editable" in n["states"])
    resp = request("POST", f"/api/v1/accessibility/{text['id']}/do", json={"action": "focus"})
    assert resp.status_code == 200, resp.text
    desktop.wait_for(lambda tree: find(tree, where=lambda n: n["id"] == text["id"] and "focused" in n["states"]),
                     "the text view focused", app="mousepad")

    stale = edit["id"].rsplit(":", 1)[0] + ":987654"
    assert request("POST", f"/api/v1/accessibility/{stale}/do", json={"action": "click"}).status_code == 404
    gone_app = "atspi:1.99999:1"
    assert request("POST", f"/api/v1/accessibility/{gone_app}/do", json={"action": "click"}).status_code == 404
    assert request("POST", "/api/v1/accessibility/web:tab:1/do", json={"action": "click"}).status_code == 404


def test_filters_and_budget(desktop: Desktop, mousepad, thunar):
    full = desktop.tree()
    interesting = desktop.tree(interesting="true")
    assert 0 < interesting["node_count"] < full["node_count"]
    assert full["coordinate_space"] == "screen pixels" and full["truncated"] is False
    assert full["placement"] == {"source": "atspi_screen"}   # X11: the applications' own screen extents

    only_buttons = desktop.tree(roles="push button")
    below_top = [n for app in only_buttons["applications"] for top in app["children"] for n in walk(top["children"])]
    assert below_top and all(n["role"] == "push button" for n in below_top)

    shallow = desktop.tree(max_depth=1)
    assert all(not top["children"] for app in shallow["applications"] for top in app["children"])

    capped = desktop.tree(max_nodes=5)
    assert capped["node_count"] == 5 and capped["truncated"] is True and "max_nodes" in capped["truncated_by"]

    pid = next(app["pid"] for app in full["applications"] if app["name"] == "thunar")
    by_pid = desktop.tree(pid=pid)
    assert [app["name"] for app in by_pid["applications"]] == ["thunar"]

    window = next(top["window"]["id"] for app in full["applications"] if app["name"] == "mousepad"
                  for top in app["children"] if top.get("window"))
    by_window = desktop.tree(window=hex(window))
    assert [top["window"]["id"] for app in by_window["applications"] for top in app["children"]] == [window]


def test_bad_queries_are_422_naming_the_parameter(desktop: Desktop):
    for params, field in [({"max_depth": "-1"}, "max_depth"), ({"max_nodes": "0"}, "max_nodes"),
                          ({"timeout_ms": "1"}, "timeout_ms"), ({"merge": "everything"}, "merge"),
                          ({"interesting": "maybe"}, "interesting"), ({"window": "zzz"}, "window"),
                          ({"roles": ",,"}, "roles"), ({"colour": "red"}, "colour")]:
        resp = desktop.desktopd.request("GET", "/api/v1/accessibility", params=params)
        assert resp.status_code == 422 and resp.json()["field"] == field, (params, resp.text)
    resp = desktop.desktopd.request("POST", "/api/v1/accessibility/atspi:1.1:1/do", json={})
    assert resp.status_code == 422 and resp.json()["field"] == "action"
    resp = desktop.desktopd.request("POST", "/api/v1/accessibility/atspi:1.1:1/do", data="{",
                                    headers={"Content-Type": "application/json"})
    assert resp.status_code == 400


def test_a_frozen_application_costs_the_time_budget_not_a_hang(desktop: Desktop, mousepad):
    frozen = desktop.launch("mousepad", "--disable-server")
    desktop.wait_for(lambda tree: tree["applications"] and tree["applications"][0]["children"],
                     "the second mousepad", pid=frozen.pid)
    os.kill(frozen.pid, signal.SIGSTOP)
    try:
        body = desktop.tree(timeout_ms=1000)
        assert body["truncated"] is True and "time_budget" in body["truncated_by"], body["truncated_by"]
        stuck = [app for app in body["applications"] if app["pid"] == frozen.pid]
        assert stuck and "error" in stuck[0] and stuck[0]["children"] == []
        others = [app["name"] for app in body["applications"] if app["children"]]
        assert "thunar" in others or "mousepad" in others  # the others still answered
    finally:
        os.kill(frozen.pid, signal.SIGCONT)
    desktop.wait_for(lambda tree: not tree["truncated"], "a complete read after the thaw")
