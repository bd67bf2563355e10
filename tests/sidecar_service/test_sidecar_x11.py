"""The sidecar's Chromium on a real X display: a normal window where the settings put it."""

from __future__ import annotations

import asyncio
import re

import pytest

from testbed.capability import have_program, require

from .support import SidecarProcess

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


async def run(*cmd: str, env: dict[str, str]) -> str:
    process = await asyncio.create_subprocess_exec(*cmd, env=env, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.DEVNULL)
    out, _ = await asyncio.wait_for(process.communicate(), 20)
    return out.decode()


async def test_window_fills_the_display_at_the_origin(chromium: str, xvfb, display_env,
                                                      sites: dict[str, str]) -> None:
    require(have_program("xdotool"), "xdotool (Debian package xdotool)")
    sidecar = await SidecarProcess.start(["--display", xvfb.display, sites["main"]],
                                         env={"DISPLAY": xvfb.display})
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        status, health = await sidecar.get("/health")
        assert status == 200 and health["headless"] is False, health
        # Default window size: the display's size, read from the X server.
        assert health["window"]["requested"] == {"x": 0, "y": 0, "width": xvfb.width,
                                                 "height": xvfb.height,
                                                 "space": "screen (device-independent pixels)"}
        actual = health["window"]["actual"]
        windows = (await run("xdotool", "search", "--onlyvisible", "--pid", str(health["pid"]),
                             env=display_env)).split()
        assert len(windows) == 1, "expected one visible Chromium window"
        geometry = await run("xdotool", "getwindowgeometry", windows[0], env=display_env)
        size = tuple(map(int, re.search(r"Geometry: (\d+)x(\d+)", geometry).groups()))
        position = tuple(map(int, re.search(r"Position: (-?\d+),(-?\d+)", geometry).groups()))
        # What /health reports is what X shows.
        assert (actual["x"], actual["y"], actual["width"], actual["height"]) == (*position, *size)
        assert position == (0, 0)
        # Chromium keeps a screen-sized window one pixel short of the screen (it would count as
        # maximized otherwise); that is why /health reports the actual bounds.
        assert xvfb.width - 1 <= size[0] <= xvfb.width and xvfb.height - 1 <= size[1] <= xvfb.height
        # A normal window with browser UI: the page's viewport is shorter than the window.
        _, tabs = await sidecar.get("/tabs")
        assert [t["url"] for t in tabs] == [sites["main"]]
    finally:
        assert await sidecar.stop() == 0, sidecar.log()


@pytest.mark.parametrize("mode", [[], ["--kiosk"]], ids=["window", "kiosk"])
async def test_closing_the_last_tab_leaves_the_browser_running(chromium: str, xvfb, mode: list[str],
                                                               sites: dict[str, str]) -> None:
    # A window's last tab closing would quit Chromium, and a restart loses the browser's state
    # (cookies, logins); a request meanwhile found no window to open a tab in (502 cdp_error).
    sidecar = await SidecarProcess.start(["--display", xvfb.display, *mode, sites["main"]],
                                         env={"DISPLAY": xvfb.display})
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        _, health = await sidecar.get("/health")
        _, tabs = await sidecar.get("/tabs")
        status, reply = await sidecar.request("DELETE", f"/tabs/{tabs[0]['id']}")
        assert status == 200, reply
        status, opened = await sidecar.request("POST", "/tabs", json={"url": sites["main"]})
        assert status == 201, opened
        _, after = await sidecar.get("/health")
        assert after["pid"] == health["pid"] and after["restarts"] == health["restarts"], after
        _, tabs = await sidecar.get("/tabs")
        assert tabs[0]["id"] != opened["id"] and tabs[0]["url"] == "about:blank"
        assert [tab["id"] for tab in tabs][1:] == [opened["id"]]
    finally:
        assert await sidecar.stop() == 0, sidecar.log()
