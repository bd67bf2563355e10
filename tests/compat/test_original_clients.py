"""The original system's clients, unchanged, against our native stack (real Xvfb, desktopd,
sidecar and Chromium): the seed's example workflow, and a harness in the original's call shapes
that relies on what the original implementation did (viewport-relative bounds, which the server
is switched to by SIDECAR_BOUNDS_SPACE, the harness's own code unchanged)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import quote

import pytest
import requests

from testbed.capability import chromium_path, require
from testbed.desktopd import start_desktopd
from testbed.xvfb import start_xvfb
from tests.sidecar_service.support import SidecarProcess

from .original_harness import OriginalHarness, expected_typed

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

SUBMIT_PAGE = quote("""<!doctype html><title>form</title><body style="margin:0;height:3000px">
<button id="submit" style="position:absolute;left:200px;top:1400px">Submit order</button>
<script>document.getElementById("submit").onclick = () => document.title = "submitted";
addEventListener("load", () => scrollTo(0, 1000));</script></body>""")


async def _stack(tmp_path, env: dict[str, str], window: tuple[str, ...] = ("--kiosk",),
                 desktopd_env: dict[str, str] | None = None) -> AsyncIterator[tuple[str, str]]:
    require(chromium_path() is not None, "Chromium")
    server = start_xvfb(1280, 800, log_path=str(tmp_path / "xvfb.log"))
    desktopd = sidecar = None
    try:
        desktopd = start_desktopd(server.display, env=desktopd_env)
        # Kiosk by default: the page fills the screen from its top-left corner, as in the
        # original's full-screen browser, so viewport coordinates are screen coordinates.
        sidecar = await SidecarProcess.start(["--display", server.display, *window, "about:blank"],
                                             env=env)
        await sidecar.wait_for_line("Chromium ready", 60)
        yield desktopd.url, sidecar.base_url
    finally:
        if sidecar is not None:
            await sidecar.stop()
        if desktopd is not None:
            desktopd.stop()
        server.stop()


@pytest.fixture
async def viewport_stack(tmp_path) -> AsyncIterator[tuple[str, str]]:
    async for urls in _stack(tmp_path, {"SIDECAR_BOUNDS_SPACE": "viewport"}):
        yield urls


@pytest.fixture
async def default_stack(tmp_path) -> AsyncIterator[tuple[str, str]]:
    async for urls in _stack(tmp_path, {}):
        yield urls


@pytest.fixture
async def windowed_stack(tmp_path) -> AsyncIterator[tuple[str, str]]:
    """A browser window smaller than the screen, and desktopd answering /tree in the i3 shape by
    its setting (the original's client asks /tree without parameters)."""
    async for urls in _stack(tmp_path, {}, ("--window-size", "1000,640", "--window-position", "60,40"),
                             {"DESKTOPD_TREE_FORMAT": "i3"}):
        yield urls


def check_chromium_window_found(desktopd: str, sidecar: str) -> None:
    """The client finds the Chromium window itself, not its fallback (the whole screen)."""
    found = OriginalHarness(desktopd, sidecar).find_chromium_window()
    windows = requests.get(f"{desktopd}/api/v1/tree", params={"format": "desktopd"}, timeout=20).json()
    chromium = next(w for w in windows["windows"] if "chromium" in " ".join(w["wm_class"] or []).lower())
    assert found == {k: chromium["frame"][k] for k in ("x", "y", "width", "height")}
    assert (found["width"], found["height"]) != (1280, 800), found


async def test_the_original_client_finds_the_chromium_window(windowed_stack) -> None:
    await asyncio.to_thread(check_chromium_window_found, *windowed_stack)


def check_original_harness(desktopd: str, sidecar: str) -> None:
    """Runs the harness and checks what it saw; shared with the compose test."""
    report = OriginalHarness(desktopd, sidecar).run()
    assert report.chromium_pid > 0
    # On a page scrolled by 1,080 px: the buttons in view, never those scrolled away.
    assert {"Two", "Three"} <= set(report.on_screen) and not {"Zero", "One"} & set(report.on_screen)
    assert sorted(report.clicked) == sorted(report.on_screen), report
    assert report.checkbox_checked == "true"
    assert report.doubles == 1
    assert report.typed == expected_typed()


async def test_a_harness_written_for_the_original_runs_unchanged(viewport_stack) -> None:
    await asyncio.to_thread(check_original_harness, *viewport_stack)


def seed_example_workflow(desktopd_base: str, dom_api: str) -> None:
    """The seed document's "Example Workflow", as written (only its two base URLs differ)."""
    DESKTOPD = desktopd_base + "/api/v1"
    DOM_API = dom_api

    # Get accessibility tree with coordinates
    layout = requests.get(f"{DOM_API}/layout").json()

    # Find a button by its accessible name and click it
    for tab in layout["tabs"]:
        viewport = tab["layout"].get("viewport", {})
        scroll_x = viewport.get("visualViewport", {}).get("x", 0)
        scroll_y = viewport.get("visualViewport", {}).get("y", 0)

        for node in tab["layout"].get("nodes", []):
            if node.get("role", {}).get("value") == "button":
                name = node.get("name", {}).get("value", "")
                if "Submit" in name and "bounds" in node:
                    bounds = node["bounds"]
                    # Calculate center point in screen coordinates
                    center_x = bounds["x"] + bounds["width"] / 2 - scroll_x
                    center_y = bounds["y"] + bounds["height"] / 2 - scroll_y

                    # Click via desktopd tablet API
                    requests.post(f"{DESKTOPD}/tablet", json={
                        "x": center_x,
                        "y": center_y,
                        "action": "tap"
                    })
                    break

    # Take screenshot for verification
    screenshot = requests.get(f"{DESKTOPD}/screenshot")
    assert screenshot.status_code == 200 and screenshot.content[:8] == b"\x89PNG\r\n\x1a\n"


def check_seed_example(desktopd: str, sidecar: str) -> None:
    tab = requests.get(f"{sidecar}/tabs", timeout=20).json()[0]
    reply = requests.post(f"{sidecar}/tabs/{tab['id']}/navigate",
                          json={"url": "data:text/html," + SUBMIT_PAGE}, timeout=20)
    assert reply.status_code == 200, reply.text
    for _ in range(50):                     # until the page scrolled itself: bounded
        layout = requests.get(f"{sidecar}/layout", timeout=20).json()
        if layout["tabs"][0]["layout"]["viewport"]["visualViewport"]["y"] == 1000:
            break
        asyncio.run(asyncio.sleep(0.1))
    seed_example_workflow(desktopd, sidecar)
    title = ""
    for _ in range(50):
        title = requests.get(f"{sidecar}/tabs", timeout=20).json()[0]["title"]
        if title == "submitted":
            break
        asyncio.run(asyncio.sleep(0.1))
    assert title == "submitted"


async def test_the_seed_example_workflow_runs_unchanged(default_stack) -> None:
    await asyncio.to_thread(check_seed_example, *default_stack)
