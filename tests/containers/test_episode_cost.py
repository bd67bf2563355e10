"""What an episode costs, checked for truth rather than time: the Chromium image's health is
green only once a screenshot, an input and /layout work, and a reset answers once its URL is
the visible, focused front tab on the desktop (docs/benchmarks.md has the figures)."""

from __future__ import annotations

import io
import time
from urllib.parse import quote

import pytest
import requests
from PIL import Image

from .conftest import START_PAGE
from .support import Desktop, remove, start_desktop

pytestmark = pytest.mark.docker

HEALTH_DEADLINE_S = 180.0
POLL_S = 0.02


def both_ok(desktop: Desktop) -> bool:
    for port in (8080, 8122):
        try:
            response = requests.get(desktop.url(port, "/health"), timeout=5)
        except requests.RequestException:
            return False
        if response.status_code != 200 or response.json().get("status") != "ok":
            return False
    return True


def test_health_is_green_only_once_a_screenshot_an_input_and_layout_work(images: dict[str, str]) -> None:
    tc, desktop = start_desktop(images["chromium"], ports=(8080, 8122), wait=False,
                                env={"SIDECAR_URLS": START_PAGE, "WIDTH": "1280", "HEIGHT": "800"})
    try:
        deadline = time.monotonic() + HEALTH_DEADLINE_S
        while not both_ok(desktop):
            assert time.monotonic() < deadline, desktop.logs()
            time.sleep(POLL_S)
        # The first moment both say ok: each of these must work now, without a retry.
        shot = desktop.get(8080, "/api/v1/screenshot")
        assert shot.status_code == 200 and Image.open(io.BytesIO(shot.content)).size == (1280, 800), shot.text[:300]
        moved = desktop.post(8080, "/api/v1/tablet", {"action": "move", "x": 17, "y": 23})
        # the answer's position is read back from the X server after the move
        assert moved.status_code == 200 and (moved.json()["x"], moved.json()["y"]) == (17, 23), moved.text
        layout = desktop.get(8122, "/layout")
        assert layout.status_code == 200, layout.text[:500]
        tabs = layout.json()["tabs"]
        assert tabs and "Container start page" in str(tabs[0].get("title")), tabs
    finally:
        remove(tc)


def focused_browser(desktop: Desktop) -> bool:
    tree = desktop.get(8080, "/api/v1/tree").json()
    return tree.get("window_manager") is not None and any(
        w["focused"] and "chromium" in str(w.get("wm_class")).lower() for w in tree["windows"])


def test_keys_reach_the_browser_of_a_fresh_container_without_a_click(images: dict[str, str]) -> None:
    """The first step of an episode that starts with no reset (OSWorld's DesktopEnv resets only
    from the second task on): the browser opened before the window manager, which takes over
    without focusing it; the desktop gives it the keyboard, and typed keys reach it."""
    tc, desktop = start_desktop(images["chromium"], ports=(8080, 8122), wait=False,
                                env={"SIDECAR_URLS": START_PAGE})
    try:
        deadline = time.monotonic() + HEALTH_DEADLINE_S
        while not both_ok(desktop):
            assert time.monotonic() < deadline, desktop.logs()
            time.sleep(POLL_S)
        deadline = time.monotonic() + 30
        while not focused_browser(desktop):
            assert time.monotonic() < deadline, desktop.get(8080, "/api/v1/tree").json()
            time.sleep(0.2)
        # Ctrl+T, a key the browser window itself handles: a new tab is the evidence.
        assert desktop.post(8080, "/api/v1/keyboard", {"keys": "ctrl+t"}).status_code == 200
        deadline = time.monotonic() + 30
        while len(tabs := desktop.get(8122, "/tabs").json()) != 2:
            assert time.monotonic() < deadline, tabs
            time.sleep(0.2)
    finally:
        remove(tc)


def solid_page(title: str, colour: str) -> str:
    return "data:text/html," + quote(f"<title>{title}</title><style>html{{background:{colour}}}</style>")


def centre_pixel(desktop: Desktop) -> tuple[int, int, int]:
    shot = desktop.get(8080, "/api/v1/screenshot")
    assert shot.status_code == 200, shot.text[:300]
    image = Image.open(io.BytesIO(shot.content)).convert("RGB")
    return image.getpixel((image.width // 2, image.height // 2))


def test_a_resets_url_is_the_visible_focused_front_tab_when_it_answers(chromium_desktop: Desktop) -> None:
    for title, colour, rgb in (("episode-red", "rgb(255,0,0)", (255, 0, 0)),
                               ("episode-green", "rgb(0,255,0)", (0, 255, 0)),
                               ("episode-blue", "rgb(0,0,255)", (0, 0, 255))):
        response = chromium_desktop.post(8080, "/api/v1/reset", {"urls": [solid_page(title, colour)]})
        assert response.status_code == 200, response.text
        browser = response.json()["browser"]
        assert browser["isolation"] == "context" and [t["title"] for t in browser["tabs"]] == [title], browser
        # Right at the answer: the screen shows the page, its window has the focus, and no
        # other browser window (the previous episode's) is left.
        assert centre_pixel(chromium_desktop) == rgb, title
        tree = chromium_desktop.get(8080, "/api/v1/tree").json()
        windows = tree["windows"] if isinstance(tree, dict) else tree
        browsers = [w for w in windows if "chromium" in str(w.get("wm_class")).lower() and w["visible"]]
        assert len(browsers) == 1 and title in browsers[0]["title"] and browsers[0]["focused"], browsers
