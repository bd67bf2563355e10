"""/api/v1/vision/text and /vision/click on a real GTK application (mousepad) on an accessible
desktop (tests/accessibility's: Xvfb, xfwm4, the AT-SPI bus, desktopd): the menu bar's labels
read from the window's pixels lie inside the boxes AT-SPI gives their menus, and a click on a
label's text opens that menu (AT-SPI then shows its items)."""

from __future__ import annotations

import pytest

from tests.accessibility.conftest import Desktop, find

pytestmark = pytest.mark.x11

MENUS = ("File", "Edit", "Search", "View", "Document", "Help")


def inside(point: dict, bounds: dict) -> bool:
    return (bounds["x"] <= point["x"] < bounds["x"] + bounds["width"]
            and bounds["y"] <= point["y"] < bounds["y"] + bounds["height"])


def test_a_gtk_windows_menu_labels_are_read_where_atspi_places_them(desktop: Desktop) -> None:
    desktop.launch("mousepad", "--disable-server")
    tree = desktop.wait_for(lambda t: find(t, role="menu", name="Help") and t, "mousepad's menus",
                            app="mousepad", interesting="true")
    window = next(top for app in tree["applications"] for top in app["children"] if top.get("window"))
    read = desktop.desktopd.request("GET", "/api/v1/vision/text", params={"window": str(window["window"]["id"])})
    assert read.status_code == 200, read.text
    words = [w for line in read.json()["lines"] for w in line["words"]]
    for name in MENUS:
        menu = find(tree, role="menu", name=name)
        assert menu is not None and menu["bounds"], name
        seen = [w for w in words if w["text"] == name]
        assert seen and inside(seen[0]["center"], menu["bounds"]), (name, seen, menu["bounds"])

    def find_items(t: dict) -> dict | None:
        return find(t, where=lambda n: n["role"] == "menu item" and n["name"].startswith("Find"))
    assert find_items(desktop.tree(app="mousepad", interesting="true")) is None   # the menu is shut
    clicked = desktop.desktopd.request("POST", "/api/v1/vision/click",
                                       json={"text": "Search", "exact": True, "window": str(window["window"]["id"])})
    assert clicked.status_code == 200, clicked.text
    opened = desktop.wait_for(find_items, "the Search menu's items", app="mousepad", interesting="true")
    assert opened
