"""The Chromium image: desktopd and the sidecar healthy, the start page in /layout, a click through
desktopd at a node's screen bounds reaching the page, and a killed Chromium restarted and reported.

Every test runs on both desktop backends (DESKTOPD_BACKEND x11 and sway: Xvfb + XFCE, or Sway
with Chromium on Wayland): one API, the same answers."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest
import requests
from PIL import Image

from .conftest import chromium_container
from .support import Desktop, NotReady


@pytest.fixture(scope="module", params=["x11", "sway"])
def chromium_desktop(images: dict[str, str], request: pytest.FixtureRequest) -> Iterator[Desktop]:
    yield from chromium_container(images, request.param)


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


def test_a_click_is_settled_on_the_browsers_word(chromium_desktop: Desktop) -> None:
    """desktopd asks the image's sidecar (loopback) whether the page took a click in: the first
    click in a document installs the page's tracker, later ones have its verdict. Both backends
    watch the screen for changes (X DAMAGE; Sway's screencopy damage), so neither settles
    unobserved."""
    centre = settled_button(chromium_desktop)["screen"]["center"]
    settled = []
    for _ in range(2):
        response = chromium_desktop.post(8080, "/api/v1/step", {"tablet": {"action": "tap", "x": centre["x"],
                                                                           "y": centre["y"]}})
        assert response.status_code == 200, response.text
        settled.append(response.json()["settled"])
    assert all(s["reason"] in ("quiet", "max") for s in settled), settled
    verdict = settled[-1].get("browser")
    assert verdict is not None and verdict["evidence"] in ("changed", "idle"), settled


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


def test_screenshots_are_the_screen_in_png_and_jpeg(chromium_desktop: Desktop) -> None:
    for fmt, kind in (("png", "PNG"), ("jpeg", "JPEG")):
        response = chromium_desktop.get(8080, "/api/v1/screenshot", params={"format": fmt})
        assert response.status_code == 200, response.text
        image = Image.open(io.BytesIO(response.content))
        assert (image.format, image.size) == (kind, (1280, 800))


def textbox(desktop: Desktop) -> dict | None:
    tab, nodes = layout_nodes(desktop, roles="textbox")
    if not tab.get("screenBounds", {"exact": True})["exact"]:
        return None     # Chromium on Wayland has not taken Sway's window yet (docs/sway.md)
    boxes = [n for n in nodes if n["role"]["value"] == "textbox"]
    return boxes[0] if boxes else None


def window_titles(desktop: Desktop) -> list[str]:
    return [w["title"] for w in desktop.get(8080, "/api/v1/tree").json()["windows"]]


def test_a_tap_just_inside_a_boxs_corner_focuses_it_and_text_arrives_exactly(chromium_desktop: Desktop) -> None:
    """Screen bounds exact to the pixel: 3 px inside the input's bottom-right corner (a box off
    by a few pixels misses it), then Unicode text typed into it, read back from the window title."""
    box = wait_for("the input in /layout", lambda: textbox(chromium_desktop), chromium_desktop)["screen"]["borderBox"]
    x, y = int(box["x"] + box["width"]) - 3, int(box["y"] + box["height"]) - 3
    response = chromium_desktop.post(8080, "/api/v1/tablet", {"action": "tap", "x": x, "y": y})
    assert response.status_code == 200, response.text
    text = "Grüße, ☺ Ωμέγα"
    response = chromium_desktop.post(8080, "/api/v1/keyboard", {"text": text})
    assert response.status_code == 200, response.text
    wait_for(f"typed:{text} as the window title after a tap at ({x}, {y}) in {box}",
             lambda: any(t.startswith(f"typed:{text}") for t in window_titles(chromium_desktop)),
             chromium_desktop, timeout=20)


def test_the_clipboard_goes_round(chromium_desktop: Desktop) -> None:
    response = requests.put(chromium_desktop.url(8080, "/api/v1/clipboard"), json={"text": "pasted ☺"},
                            headers=chromium_desktop.headers(), timeout=20)
    assert response.status_code == 200, response.text
    assert chromium_desktop.get(8080, "/api/v1/clipboard").json() == {"text": "pasted ☺", "empty": False}


def test_the_i3_tree_holds_chromiums_window(chromium_desktop: Desktop) -> None:
    tree = chromium_desktop.get(8080, "/api/v1/tree", params={"format": "i3"}).json()
    assert tree["type"] == "root"

    def leaves(node: dict) -> Iterator[dict]:
        children = [*node.get("nodes", []), *node.get("floating_nodes", [])]
        if not children and node.get("type") in ("con", "floating_con"):
            yield node
        for child in children:
            yield from leaves(child)

    names = [str(leaf.get("app_id") or (leaf.get("window_properties") or {}).get("class")).lower()
             for leaf in leaves(tree)]
    assert any("chromium" in name for name in names), names


def test_novnc_asks_the_vnc_password_where_the_vnc_server_cannot(chromium_desktop: Desktop) -> None:
    """x11vnc checks the password itself; bookworm's wayvnc only inside TLS, which noVNC lacks, so
    on Sway noVNC's web server asks it (HTTP basic auth) and wayvnc listens on loopback only."""
    backend = chromium_desktop.get(8080, "/health").json()["x"].get("backend", "x11")
    page = chromium_desktop.url(6080, "/vnc.html")
    if backend == "sway":
        assert requests.get(page, timeout=10).status_code == 401
        assert requests.get(page, auth=("desktop", "wrong"), timeout=10).status_code == 401
        assert requests.get(page, auth=("desktop", chromium_desktop.vnc_password), timeout=10).status_code == 200
        _code, listening = chromium_desktop.exec_in("cat", "/proc/net/tcp")
        vnc = [line.split()[1] for line in listening.splitlines()[1:]
               if line.split()[1].endswith(":170C") and line.split()[3] == "0A"]   # 5900, LISTEN
        assert vnc == ["0100007F:170C"], vnc   # 127.0.0.1 only
    else:
        assert requests.get(page, timeout=10).status_code == 200
def test_vision_reads_and_clicks_the_button_by_its_text_with_the_images_ocr_engine(chromium_desktop: Desktop) -> None:
    wait_for("the start page's button", lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Press me",
             chromium_desktop)
    response = chromium_desktop.get(8080, "/api/v1/vision/text")
    assert response.status_code == 200, response.text
    body = response.json()
    # Tesseract's model in the image's ONNX Runtime, not the fallback (which would say why).
    assert body["engine"]["name"] == "tesseract-model-onnx" and "fallback" not in body["engine"], body["engine"]
    assert any("Press me" in line["text"] for line in body["lines"]), body["text"]
    clicked = chromium_desktop.post(8080, "/api/v1/vision/click", {"text": "Press me"})
    assert clicked.status_code == 200, clicked.text
    wait_for("the button's new name after vision/click",
             lambda: (b := button(chromium_desktop)) and b["name"]["value"] == "Clicked", chromium_desktop, timeout=20)
