"""The Chromium image's accessibility tree: the session's AT-SPI bus is up, Chromium's UI and the
XFCE panel are in desktopd's /api/v1/accessibility, merge=browser puts the start page's /layout
nodes in the Chromium window, and a click at a merged node's center reaches the page."""

from __future__ import annotations

from .support import Desktop
from .test_chromium_image import layout_nodes, wait_for


def walk(nodes):
    for node in nodes:
        yield node
        yield from walk(node["children"])


def tree(desktop: Desktop, **params: str) -> dict:
    response = desktop.get(8080, "/api/v1/accessibility", params=params)
    return response.json() if response.status_code == 200 else {"applications": [], "status": response.status_code}


def test_browser_ui_panel_and_page_in_one_tree(chromium_desktop: Desktop) -> None:
    def merged():
        body = tree(chromium_desktop, interesting="true", merge="browser")
        nodes = list(walk(body["applications"]))
        address = [n for n in nodes if n["role"] == "entry" and n["name"] == "Address and search bar"]
        button = [n for n in nodes if n["id"].startswith("web:") and n["name"] == "Press me"]
        return (body, address[0], button[0]) if address and button else None

    body, address, button = wait_for("Chromium's address bar and the page's button", merged, chromium_desktop)
    assert address["id"].startswith("atspi:") and address["center"]["y"] < button["center"]["y"]
    assert any(app["name"] == "xfce4-panel" for app in body["applications"]), \
        [app["name"] for app in body["applications"]]
    top = next(t for app in body["applications"] if app["name"] == "Chromium" for t in app["children"]
               if t.get("window"))
    assert "chromium" in " ".join(top["window"]["wm_class"] or []).lower()

    response = chromium_desktop.post(8080, "/api/v1/tablet", {"action": "tap", **button["center"]})
    assert response.status_code == 200, response.text
    wait_for("the page's button clicked", lambda: any(
        n["name"]["value"] == "Clicked" for n in layout_nodes(chromium_desktop)[1]), chromium_desktop)


def test_xfce_panel_menu_item_from_the_tree_alone(chromium_desktop: Desktop) -> None:
    """Applications (a panel button) -> Terminal Emulator (an XFCE menu item), each tapped at its
    tree center: a terminal window opens."""
    def panel_node(role: str, name: str):
        body = tree(chromium_desktop, app="xfce4-panel", interesting="true")
        return next((n for n in walk(body["applications"]) if n["role"] == role and n["name"] == name
                     and n["center"]), None)

    applications = wait_for("the panel's Applications button", lambda: panel_node("toggle button", "Applications"),
                            chromium_desktop)
    chromium_desktop.post(8080, "/api/v1/tablet", {"action": "tap", **applications["center"]})
    terminal = wait_for("the Terminal Emulator menu item", lambda: panel_node("menu item", "Terminal Emulator"),
                        chromium_desktop)
    chromium_desktop.post(8080, "/api/v1/tablet", {"action": "tap", **terminal["center"]})

    def terminal_window():
        windows = chromium_desktop.get(8080, "/api/v1/tree").json()["windows"]
        return [w for w in windows if "xfce4-terminal" in (w["wm_class"] or [])]

    wait_for("a terminal window", terminal_window, chromium_desktop)
