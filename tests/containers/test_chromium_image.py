"""The Chromium image: desktopd and the sidecar healthy, the start page in /layout, a click through
desktopd at a node's screen bounds reaching the page, and a killed Chromium restarted and reported."""

from __future__ import annotations

import time

import requests

from .support import Desktop, NotReady


def layout_nodes(desktop: Desktop, **params: str) -> tuple[dict, list[dict]]:
    response = desktop.get(8122, "/layout", params=params)
    assert response.status_code == 200, response.text
    tab = response.json()["tabs"][0]
    return tab, tab["layout"]["nodes"]


def button(desktop: Desktop) -> dict | None:
    _tab, nodes = layout_nodes(desktop, roles="button")
    buttons = [n for n in nodes if n["role"]["value"] == "button"]
    return buttons[0] if buttons else None


def wait_for(what: str, probe, desktop: Desktop, timeout: float = 60):
    """Bounded poll of an HTTP-observable condition; failure carries the container's logs."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.3)
    raise NotReady(f"{what} not seen within {timeout}s (last: {last!r}):\n{desktop.logs()}")


def test_both_services_are_healthy(chromium_desktop: Desktop) -> None:
    desktopd = requests.get(chromium_desktop.url(8080, "/health"), timeout=10)
    sidecar = requests.get(chromium_desktop.url(8122, "/health"), timeout=10)
    assert desktopd.status_code == 200 and desktopd.json()["status"] == "ok", desktopd.text
    assert desktopd.json()["screen"] == {"width": 1280, "height": 800}  # WIDTH/HEIGHT honoured
    assert sidecar.status_code == 200 and sidecar.json()["status"] == "ok", sidecar.text
    assert sidecar.json()["headless"] is False


def test_layout_shows_the_start_page(chromium_desktop: Desktop) -> None:
    tab, nodes = layout_nodes(chromium_desktop)
    assert "Container start page" in (tab.get("title") or nodes[0]["name"]["value"]), tab
    assert any(n["role"]["value"] == "button" and n["name"]["value"] == "Press me" for n in nodes), nodes


def test_chromium_window_is_on_the_desktop(chromium_desktop: Desktop) -> None:
    response = chromium_desktop.get(8080, "/api/v1/tree")
    assert response.status_code == 200, response.text
    body = response.json()
    windows = body["windows"] if isinstance(body, dict) else body
    assert any("chromium" in str(w.get("wm_class")).lower() for w in windows), windows


def settled_button(desktop: Desktop) -> dict:
    """The button once its screen box is the same on two reads 0.5 s apart: right after start-up
    the window manager may still be placing (maximizing) Chromium's window."""
    previous: dict | None = None

    def settled() -> dict | None:
        nonlocal previous
        node = button(desktop)
        same = node is not None and previous is not None and node["screen"] == previous["screen"]
        previous = node
        if not same:
            time.sleep(0.5)
        return node if same else None

    return wait_for("a settled button box in /layout", settled, desktop, timeout=30)


def test_click_at_screen_bounds_presses_the_button(chromium_desktop: Desktop) -> None:
    node = settled_button(chromium_desktop)
    assert node["name"]["value"] == "Press me", node
    centre = node["screen"]["center"]
    response = chromium_desktop.post(8080, "/api/v1/tablet", {"action": "tap", "x": centre["x"], "y": centre["y"]})
    assert response.status_code == 200, response.text
    wait_for(f"the button's new name after a tap at {centre} (box {node['screen']})",
             lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Clicked",
             chromium_desktop, timeout=20)


def test_killed_chromium_is_restarted_and_reported(chromium_desktop: Desktop) -> None:
    before = chromium_desktop.get(8122, "/health").json()
    assert before["status"] == "ok" and before["pid"], before
    code, output = chromium_desktop.exec_in("kill", "-9", str(before["pid"]))
    assert code == 0, output

    def restarted() -> dict | None:
        body = requests.get(chromium_desktop.url(8122, "/health"), timeout=10).json()
        ok = body["status"] == "ok" and body["restarts"] > before["restarts"] and body["pid"] != before["pid"]
        return body if ok else None

    after = wait_for("a restarted Chromium in /health", restarted, chromium_desktop, timeout=90)
    code, output = chromium_desktop.exec_in("kill", "-0", str(after["pid"]))
    assert code == 0, f"the reported pid {after['pid']} is not running: {output}"
    # The restarted browser shows the start page again.
    wait_for("the start page after the restart",
             lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Press me", chromium_desktop)


def test_vision_reads_and_clicks_the_button_by_its_text_with_the_images_tesseract(chromium_desktop: Desktop) -> None:
    wait_for("the start page's button", lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Press me",
             chromium_desktop)
    response = chromium_desktop.get(8080, "/api/v1/vision/text")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["engine"]["name"] == "tesseract"
    assert any("Press me" in line["text"] for line in body["lines"]), body["text"]
    clicked = chromium_desktop.post(8080, "/api/v1/vision/click", {"text": "Press me"})
    assert clicked.status_code == 200, clicked.text
    wait_for("the button's new name after vision/click",
             lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Clicked", chromium_desktop, timeout=20)
