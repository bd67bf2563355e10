"""The accessibility layer's pure parts: ids, tree shaping, window ties, the /layout merge, and
the OpenAPI entries (no bus needed)."""

from __future__ import annotations

import pytest

from desktopd.accessibility.ids import atspi_id, parse_atspi_id, web_id
from desktopd.accessibility.merge import containers_of_unplaced_tabs, merge_layout, web_nodes
from desktopd.accessibility.snapshot import TreeFilter, shape, walk
from desktopd.accessibility.vocabulary import role_name, state_names
from desktopd.accessibility.xwindows import attach_windows, keep_window, windows_not_in_tree


def node(id_, role, name="", *, states=("showing", "visible"), bounds=(0, 0, 10, 10), children=(), **extra):
    box = None if bounds is None else dict(zip(("x", "y", "width", "height"), bounds))
    center = None if bounds is None else {"x": bounds[0] + bounds[2] // 2, "y": bounds[1] + bounds[3] // 2}
    return {"id": id_, "source": "atspi", "role": role, "name": name, "description": "", "value": None,
            "states": list(states), "actions": None, "bounds": box, "center": center,
            "children": list(children), **extra}


def desktop():
    dialog_button = node("atspi:1.2:9", "push button", "OK", bounds=(110, 110, 20, 10))
    hidden = node("atspi:1.2:8", "menu item", "Quit", states=(), bounds=None)
    panel = node("atspi:1.2:7", "panel", children=[dialog_button, hidden])
    frame = node("atspi:1.2:5", "frame", "Editor", bounds=(100, 100, 300, 200), children=[panel])
    return [node("atspi:1.2:root", "application", "editor", bounds=None, children=[frame], pid=42,
                 bus_name=":1.2")]


@pytest.mark.parametrize("bus,path", [(":1.12", "/org/a11y/atspi/accessible/211"),
                                      (":1.3", "/org/a11y/atspi/accessible/root"),
                                      (":1.40", "/org/gtk/widgets/Window/3")])
def test_ids_round_trip(bus, path):
    assert parse_atspi_id(atspi_id(bus, path)) == (bus, path)


@pytest.mark.parametrize("bad", ["", "atspi", "atspi:1.2", "atspi:x.y:3", "web:abc:1", "atspi:1.2:a/b",
                                 "atspi:1.2:~org~~x", "atspi:1:3"])
def test_bad_ids_are_not_parsed(bad):
    assert parse_atspi_id(bad) is None


def test_web_ids_say_their_source():
    assert web_id("TAB1", "42") == "web:TAB1:42"


def test_vocabulary():
    assert role_name(43) == "push button" and role_name(9999) == "role 9999"
    assert state_names([1 << 25 | 1 << 30, 0]) == ["showing", "visible"]
    assert state_names([0, 1 << 3]) == ["animated"]


def test_interesting_collapses_unnamed_containers_and_drops_what_is_not_showing():
    apps, count, cut = shape(desktop(), TreeFilter(interesting=True))
    frame = apps[0]["children"][0]
    assert [c["id"] for c in frame["children"]] == ["atspi:1.2:9"]  # panel gone, hidden item gone
    assert count == 3 and cut is False


def test_roles_max_depth_and_max_nodes():
    apps, _, _ = shape(desktop(), TreeFilter(roles=frozenset({"menu item"})))
    assert [n["role"] for n in walk(apps[0]["children"][0]["children"])] == ["menu item"]
    apps, count, _ = shape(desktop(), TreeFilter(max_depth=1))
    assert count == 2 and apps[0]["children"][0]["children"] == [] and apps[0]["children"][0]["child_count"] == 1
    apps, count, cut = shape(desktop(), TreeFilter(max_nodes=2))
    assert count == 2 and cut is True


def test_windows_tie_by_pid_and_rectangle():
    apps = desktop()
    windows = [{"id": 7, "frame_id": 70, "title": "Other", "pid": 42, "visible": True,
                "client": {"x": 600, "y": 0, "width": 100, "height": 100}, "frame": None},
               {"id": 8, "frame_id": 80, "title": "Editor", "pid": 42, "visible": True,
                "client": {"x": 105, "y": 125, "width": 290, "height": 170},
                "frame": {"x": 100, "y": 100, "width": 300, "height": 200}}]
    attach_windows(apps, windows)
    assert apps[0]["children"][0]["window"]["id"] == 8
    assert keep_window(apps, 80)[0]["children"][0]["id"] == "atspi:1.2:5"
    assert keep_window(apps, 7) == []


def test_windows_of_accessible_applications_missing_from_the_tree_are_pending():
    """A starting desktop: the editor's second window has no top-level yet, Chromium's window is
    up before Chromium is on the bus; an xterm (no accessibility) and a hidden window never count."""
    apps = desktop()
    editor = {"id": 8, "frame_id": 80, "title": "Editor", "pid": 42, "visible": True, "wm_class": ["ed", "Ed"],
              "client": {"x": 105, "y": 125, "width": 290, "height": 170},
              "frame": {"x": 100, "y": 100, "width": 300, "height": 200}}
    second = {**editor, "id": 9, "frame_id": 90, "title": "Editor 2",
              "client": {"x": 700, "y": 0, "width": 100, "height": 100}, "frame": None}
    browser = {**second, "id": 10, "pid": 77, "wm_class": ["chromium (/tmp/p)", "Chromium"]}
    xterm = {**second, "id": 11, "pid": 78, "wm_class": ["xterm", "XTerm"]}
    hidden = {**second, "id": 12, "visible": False}
    windows = [editor, second, browser, xterm, hidden]
    attach_windows(apps, windows)
    assert [window["id"] for window in windows_not_in_tree(apps, windows)] == [9, 10]
    assert windows_not_in_tree(apps, [editor, xterm, hidden]) == []


def layout_node(node_id, role, name, parent, children, box=None, ignored=False):
    screen = None if box is None else {"space": "screen", "borderBox": dict(zip(("x", "y", "width", "height"), box)),
                                       "center": {"x": box[0] + box[2] // 2, "y": box[1] + box[3] // 2}}
    return {"nodeId": node_id, "role": {"type": "role", "value": role}, "name": {"type": "computed", "value": name},
            "value": None, "description": None, "states": {"focusable": True, "disabled": False},
            "properties": {}, "ignored": ignored, "parentId": parent, "childIds": children,
            "screen": screen, "visible": box is not None}


def test_merge_replaces_the_shown_document_with_the_visible_tab():
    document = node("atspi:1.9:2", "document web", bounds=(14, 153, 1000, 600),
                    children=[node("atspi:1.9:211", "push button", "Go")])
    apps = [node("atspi:1.9:root", "application", "Chromium", bounds=None,
                 children=[node("atspi:1.9:1", "frame", "Page - Chromium", children=[document])])]
    tab = {"id": "T1", "url": "data:,", "title": "Page", "visible": True, "layout": {
        "viewport": {"screenOrigin": {"space": "screen", "x": 14, "y": 153}},
        "nodes": [layout_node("1", "RootWebArea", "Page", None, ["2"], (14, 153, 1000, 600)),
                  layout_node("2", "generic", "", "1", ["3"], ignored=True),
                  layout_node("3", "button", "Go", "2", [], (30, 170, 60, 20))]}}
    background = {"id": "T2", "url": "x", "title": "x", "visible": False, "layout": tab["layout"]}
    merged = merge_layout(apps, {"tabs": [background, tab]})
    assert merged == [{"document": "atspi:1.9:2", "tab": "T1", "url": "data:,"}]
    assert [(n["id"], n["role"], n["center"]) for n in document["children"]] == \
        [("web:T1:3", "button", {"x": 60, "y": 180})]
    assert document["children"][0]["states"] == ["focusable"]
    assert web_nodes({"id": "T3", "layout": None}) == []
    # A popup's document with no area on screen gets no page; a tab fills one document only.
    popup = node("atspi:1.9:36", "document web", bounds=None)
    twin = node("atspi:1.9:37", "document web", bounds=(14, 153, 1000, 600))
    apps[0]["children"].append(node("atspi:1.9:3", "frame", children=[popup, twin]))
    document["children"] = []
    assert [m["document"] for m in merge_layout(apps, {"tabs": [tab]})] == ["atspi:1.9:2"]
    assert popup["children"] == [] and twin["children"] == []



def test_where_a_shown_tab_has_no_document_its_containers_are_asked():
    """A navigation typed in the address bar: Chromium's cache lacks the new document, and the
    objects where the tab's page starts are the ones to ask for it (nothing when a document is
    there, nothing for a background tab)."""
    view = node("atspi:1.9:41", "panel", bounds=(14, 153, 1000, 600))
    popup = node("atspi:1.9:36", "document web", bounds=(139, 61, 0, 0))
    toolbar = node("atspi:1.9:7", "panel", bounds=(14, 60, 1000, 40))
    apps = [node("atspi:1.9:root", "application", "Chromium", bounds=None,
                 children=[node("atspi:1.9:1", "frame", "Page - Chromium", bounds=(0, 0, 1024, 768),
                                children=[toolbar, view, popup])])]
    shown = {"id": "T1", "url": "http://x/", "title": "x", "visible": True, "layout": {
        "viewport": {"screenOrigin": {"space": "screen", "x": 14, "y": 153}}, "nodes": []}}
    assert containers_of_unplaced_tabs(apps, {"tabs": [shown]}) == [view]
    assert containers_of_unplaced_tabs(apps, {"tabs": [{**shown, "visible": False}]}) == []
    view["children"].append(node("atspi:1.9:237", "document web", bounds=(14, 153, 1000, 600)))
    assert containers_of_unplaced_tabs(apps, {"tabs": [shown]}) == []


async def test_openapi_documents_the_endpoints_and_their_errors(client):
    spec = await (await client.get("/api/v1/openapi.json")).json()
    tree = spec["paths"]["/api/v1/accessibility"]["get"]
    names = {p["name"] for p in tree["parameters"]}
    assert {"window", "pid", "app", "interesting", "roles", "max_depth", "max_nodes", "timeout_ms",
            "merge"} <= names
    assert {"200", "401", "422", "503"} <= set(tree["responses"])
    do = spec["paths"]["/api/v1/accessibility/{id}/do"]["post"]
    assert {"200", "400", "404", "422", "502", "503"} <= set(do["responses"])
    assert "accessibility" in do["parameters"][0]["description"]


def test_sidecar_accessibility_setting_reaches_chromium_command():
    from sidecar.browser.launcher import LaunchOptions, chromium_command
    from sidecar.settings import parse_settings

    on = parse_settings([], {"SIDECAR_ACCESSIBILITY": "1", "DISPLAY": ":5"})
    assert on.accessibility is True and on.launch_options(None).accessibility is True
    assert parse_settings(["--accessibility"], {"DISPLAY": ":5"}).accessibility is True
    assert parse_settings([], {"DISPLAY": ":5"}).accessibility is False
    assert "--force-renderer-accessibility" in chromium_command(LaunchOptions(accessibility=True), "/tmp/p", None)
    assert "--force-renderer-accessibility" not in chromium_command(LaunchOptions(), "/tmp/p", None)


async def test_token_guards_both_endpoints(make_client):
    client = await make_client(token="s3cret")
    assert (await client.get("/api/v1/accessibility")).status == 401
    assert (await client.post("/api/v1/accessibility/atspi:1.2:3/do", json={"action": "click"})).status == 401


async def test_validation_comes_before_the_bus(make_client, monkeypatch):
    """Bad input is a 422 naming the field even with no bus at all (no bus is opened for it)."""
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    client = await make_client()
    resp = await client.get("/api/v1/accessibility", params={"max_nodes": "many"})
    assert resp.status == 422 and (await resp.json())["field"] == "max_nodes"
    resp = await client.post("/api/v1/accessibility/atspi:1.2:3/do", json={"action": ""})
    assert resp.status == 422 and (await resp.json())["field"] == "action"
    resp = await client.get("/api/v1/accessibility")
    assert resp.status == 503 and "DBUS" not in (await resp.json())["error"]
