"""The Chromium window in the desktop's tree (launched by the sidecar with --accessibility): an
agent finds and clicks the address bar, a tab and a toolbar button from the tree alone, and with
?merge=browser the page's nodes come from /layout (ids web:...) with exact screen bounds."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator

import pytest

from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.pages import PageServer

from .conftest import Desktop, SidecarProcess, find, start_sidecar, walk

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

PAGE = "data:text/html," + urllib.parse.quote(
    "<title>first</title><body style='margin:40px'>"
    "<button style='width:160px;height:50px' onclick=\"document.title='pressed'\">Press me</button>"
    "<p>Some text</p></body>")


@pytest.fixture(scope="module")
def browser(desktop: Desktop) -> Iterator[tuple[SidecarProcess, DesktopdProcess]]:
    sidecar = start_sidecar(desktop, PAGE)
    merged = None
    try:
        # A desktopd that knows where this sidecar listens (the module's own uses the default).
        merged = start_desktopd(desktop.xvfb.display, "--sidecar-url", sidecar.url,
                                env=desktop.env)
        desktop.wait_for(lambda tree: find(tree, role="entry", name="Address and search bar",
                                           where=lambda n: n["bounds"]),
                         "Chromium's address bar", app="Chromium", interesting="true")
        yield sidecar, merged
    finally:
        if merged is not None:
            merged.stop()
        sidecar.stop()


def chromium(desktop: Desktop, **params):
    return desktop.tree(app="Chromium", interesting="true", **params)


def tab_titles(sidecar: SidecarProcess) -> list[str]:
    tabs = sidecar.request("GET", "/tabs").json()
    return [t["title"] for t in tabs]


def test_address_bar_click_focuses_it(desktop: Desktop, browser):
    address = find(chromium(desktop), role="entry", name="Address and search bar")
    assert "focused" not in address["states"]
    desktop.tap(address)
    desktop.wait_for(lambda tree: find(tree, where=lambda n: n["id"] == address["id"] and "focused" in n["states"]),
                     "the address bar focused", app="Chromium")
    desktop.desktopd.request("POST", "/api/v1/keyboard", json={"keys": "Escape"})


def test_toolbar_button_and_tab_clicks(desktop: Desktop, browser):
    sidecar, _ = browser
    new_tab = find(chromium(desktop), role="push button", name="New Tab")
    assert new_tab is not None and new_tab["bounds"]
    before = len(tab_titles(sidecar))
    desktop.tap(new_tab)

    def first_tab_behind(tree) -> dict | None:
        """The first page's tab once a new tab opened and took its place in front (the tab
        strip's states reach the tree a moment after the tab itself)."""
        if len(tab_titles(sidecar)) <= before:
            return None
        return find(tree, role="page tab", where=lambda n: n["name"].startswith("first") and n["bounds"]
                    and "selected" not in n["states"])

    first = desktop.wait_for(first_tab_behind, "a new tab in front of the first", app="Chromium",
                             interesting="true")
    desktop.tap(first)
    desktop.wait_for(lambda tree: find(tree, where=lambda n: n["id"] == first["id"] and "selected" in n["states"]),
                     "the first tab selected again", app="Chromium", interesting="true")


def test_window_ties_and_geometry(desktop: Desktop, browser):
    tree = chromium(desktop)
    frame = next(top for app in tree["applications"] for top in app["children"] if top.get("window"))
    window = desktop.desktopd.request("GET", f"/api/v1/windows/{frame['window']['id']}").json()
    rects = [{k: window[part][k] for k in ("x", "y", "width", "height")} for part in ("frame", "client")]
    assert frame["bounds"] in rects
    assert "chromium" in " ".join(frame["window"]["wm_class"] or []).lower()


def merged_tree_of_the_page(sidecar: SidecarProcess, merged: DesktopdProcess) -> dict:
    """The merged tree with the test page's tab in front (another test may have left a new tab
    there, whose page /layout does not read): that tab brought forward, the tree asked until the
    page's document is merged (bounded)."""
    page_tab = next(t for t in sidecar.request("GET", "/tabs").json() if t["url"].startswith("data:"))
    assert sidecar.request("POST", f"/tabs/{page_tab['id']}/activate").status_code == 200
    body: dict = {}
    for _ in range(50):
        resp = merged.request("GET", "/api/v1/accessibility",
                              params={"merge": "browser", "app": "Chromium", "interesting": "true"})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        if body["merge"]["status"] == "merged":
            return body
        time.sleep(0.2)
    raise AssertionError(f"the page's document was never merged: {body.get('merge')}")


def test_merged_tree_has_the_page_from_layout_and_its_click_lands(desktop: Desktop, browser):
    sidecar, merged = browser
    body = merged_tree_of_the_page(sidecar, merged)
    document = find(body, where=lambda n: "merged" in n)
    assert document["id"].startswith("atspi:") and document["merged"]["tab"]
    button = find(document["children"], name="Press me")
    assert button is not None and button["id"].startswith("web:") and button["source"] == "web"
    # Browser UI and page in one tree, both in screen pixels: the page sits below the toolbar.
    address = find(body, role="entry", name="Address and search bar")
    assert address["id"].startswith("atspi:") and button["center"]["y"] > address["bounds"]["y"]
    # Same bounds as /layout's screen box, and the click at its center presses it.
    layout = sidecar.request("GET", "/layout").json()
    node_id = button["id"].split(":", 2)[2]
    raw = next(n for tab in layout["tabs"] if tab["layout"] for n in tab["layout"]["nodes"] if n["nodeId"] == node_id)
    assert button["center"] == raw["screen"]["center"]
    desktop.tap(button)
    desktop.wait_for(lambda _tree: "pressed" in tab_titles(sidecar), "the page's button pressed",
                     app="Chromium", max_depth=0)


def test_merge_reports_an_unreachable_sidecar(desktop: Desktop, browser):
    resp = desktop.desktopd.request("GET", "/api/v1/accessibility", params={"merge": "browser", "max_depth": "0"})
    assert resp.status_code == 200
    merge = resp.json()["merge"]
    assert merge["status"] == "layout_unavailable" and "127.0.0.1:9" in merge["detail"], merge


@pytest.fixture
def web_page(tmp_path) -> Iterator[str]:
    """A page on a local HTTP server (what a person types into the address bar)."""
    (tmp_path / "typed.html").write_text("<!doctype html><title>typed</title><body style='margin:40px'>"
                                         "<button style='width:160px;height:50px'>Typed button</button>")
    server = PageServer(tmp_path)
    try:
        yield server.url("typed.html")
    finally:
        server.stop()


def test_the_merge_finds_the_page_after_a_navigation_typed_in_the_address_bar(desktop: Desktop, browser,
                                                                              web_page: str):
    """A person's own navigation (the address bar, not the sidecar's API): the merged tree has the
    new page's document from /layout."""
    sidecar, merged = browser
    page_tab = next(t for t in sidecar.request("GET", "/tabs").json() if t["url"].startswith("data:"))
    assert sidecar.request("POST", f"/tabs/{page_tab['id']}/activate").status_code == 200
    address = find(chromium(desktop), role="entry", name="Address and search bar")
    desktop.tap(address)
    desktop.wait_for(lambda tree: find(tree, where=lambda n: n["id"] == address["id"] and "focused" in n["states"]),
                     "the address bar focused", app="Chromium")
    typed = desktop.desktopd.request("POST", "/api/v1/keyboard", json={"text": web_page + "\n"})
    assert typed.status_code == 200, typed.text

    def loaded() -> bool:
        return any(t["id"] == page_tab["id"] and t["url"] == web_page and t["title"] == "typed"
                   for t in sidecar.request("GET", "/tabs").json())

    desktop.wait_for(lambda _tree: loaded(), "the typed page loaded", app="Chromium", max_depth=0)
    body: dict = {}
    for _ in range(50):                 # bounded: the tree follows the page a moment later
        body = merged.request("GET", "/api/v1/accessibility",
                              params={"merge": "browser", "app": "Chromium", "interesting": "true"}).json()
        if body["merge"]["status"] == "merged":
            break
        time.sleep(0.2)
    assert body["merge"]["status"] == "merged", body["merge"]
    (document,) = body["merge"]["documents"]
    assert document["tab"] == page_tab["id"] and document["url"] == web_page
    button = find(body, name="Typed button")
    assert button is not None and button["id"].startswith(f"web:{page_tab['id']}:")


def test_chromiums_menus_and_dialogs_are_in_the_tree(desktop: Desktop, browser):
    """Chromium announces none of its menus and dialogs to its AT-SPI cache: the app menu's items
    and the bookmark dialog's "Folder" combo box are in the tree (as pyatspi's walk finds them),
    and a menu item found there by name is clicked."""
    sidecar, _ = browser
    menu_button = find(chromium(desktop), role="push button", name="Chromium")
    assert menu_button is not None and menu_button["bounds"]
    desktop.tap(menu_button)
    new_tab = desktop.wait_for(lambda tree: find(tree, role="menu item", name="New tab Ctrl+T",
                                                 where=lambda n: n["bounds"]),
                               "the app menu's items", app="Chromium", interesting="true")
    names = {n["name"] for n in walk(chromium(desktop)["applications"]) if n["role"] == "menu item"}
    assert {"History", "Bookmarks and lists", "Settings", "Exit"} <= names, names
    before = len(tab_titles(sidecar))
    desktop.tap(new_tab)
    deadline = time.monotonic() + 30
    while len(tab_titles(sidecar)) == before:   # the menu item did what it says
        assert time.monotonic() < deadline, "the New tab menu item opened no tab"
        time.sleep(0.1)
    desktop.desktopd.request("POST", "/api/v1/keyboard", json={"keys": "ctrl+d"})
    folder = desktop.wait_for(lambda tree: find(tree, role="combo box", name="Folder",
                                                where=lambda n: n["bounds"]),
                              "the bookmark dialog's Folder combo box", app="Chromium", interesting="true")
    assert folder["center"] is not None
    desktop.desktopd.request("POST", "/api/v1/keyboard", json={"keys": "Escape"})
