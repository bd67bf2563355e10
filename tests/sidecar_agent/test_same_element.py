"""Both modes end on the same element: the page records which button each click reached, on a
scrolled page (far down, far right, an inner scroller), in same-origin and out-of-process
iframes, in a shadow root, under CSS zoom, browser zoom (150 %), and device scale factor 2. In
visible mode, each click's screen point is also checked against /layout's clickPoint."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from testbed.agent_stack import Stack, start_stack
from testbed.capability import chromium_path, have_program, require
from testbed.pages import PageServer

from .agent import Agent

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

CASES = [("Top", "b-top"), ("Far down", "b-far"), ("Far right", "b-right"), ("Bottom", "b-bottom"),
         ("Inner scroll", "b-inner"), ("CSS zoom", "b-csszoom"), ("Rotated", "b-rot"),
         ("In shadow", "b-shadow"), ("Fixed", "b-fixed"), ("same Three", "same-f-three"),
         ("cross Two", "cross-f-two")]
CLICKS = "() => window.__clicks"


def _evaluate(agent: Agent, function: str) -> object:
    return agent.act("evaluate", function=function, mode="cdp")["result"]


def _recorded_after(agent: Agent, seen: int) -> list[str]:
    """The clicks the page recorded after the first ``seen`` (iframes report by postMessage)."""
    for _ in range(40):
        clicks = _evaluate(agent, CLICKS)
        if len(clicks) > seen:
            return clicks[seen:]
        time.sleep(0.05)
    return []


def _layout_click_point(agent: Agent, ref: str) -> dict[str, int]:
    """/layout's screen.clickPoint of the element now, through the JSON snapshot's screen box."""
    found = []
    todo = list(agent.get("/snapshot", format="json")["tree"])
    while todo:
        node = todo.pop()
        if node.get("ref") == ref:
            found.append(node)
        todo.extend(node.get("children") or [])
    assert len(found) == 1, f"{len(found)} nodes with ref {ref}"
    return found[0]["screen"]["clickPoint"]


def click_every_case(agent: Agent, mode: str) -> None:
    """Each case clicked by ref, and the page says which element the click reached; in visible
    mode the screen point the act clicked must be the one /layout gives for the element in the
    view the click left (the act measures it without reading the whole tab)."""
    agent.wait_for_text('"cross Two"')
    for name, want in CASES:
        ref = agent.ref("button", name, agent.snapshot())
        seen = len(_evaluate(agent, CLICKS))
        done = agent.act("click", ref=ref, mode=mode)
        assert done["element"]["name"] == name
        got = _recorded_after(agent, seen)
        assert got == [want], f"{mode} click on {name!r} at {done['point']} reached {got}"
        if mode == "visible":
            assert done["point"]["space"] == "screen"
            layout = _layout_click_point(agent, ref)
            # Both round the same sum; their boxes can differ in a fraction of a pixel.
            assert abs(done["point"]["x"] - layout["x"]) <= 1 and \
                abs(done["point"]["y"] - layout["y"]) <= 1, (name, done["point"], layout)


def _open(agent: Agent, pages: PageServer) -> None:
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": pages.url("main.html")})


@pytest.mark.parametrize("mode", ["visible", "cdp"])
def test_both_modes_hit_the_element(stack: Stack, pages: PageServer, mode: str) -> None:
    agent = Agent(stack.url)
    _open(agent, pages)
    click_every_case(agent, mode)


def test_both_modes_under_browser_zoom(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url)
    _open(agent, pages)
    agent.wait_for_text('"cross Two"')
    agent.act("click", ref=agent.ref("button", "Top"))        # the window has the keyboard
    for _ in range(3):
        agent.act("press", key="Control+=")                  # Chromium's zoom in: 110, 125, 150 %
    try:
        for _ in range(40):
            if _evaluate(agent, "() => window.devicePixelRatio") == 1.5:
                break
            time.sleep(0.05)
        assert _evaluate(agent, "() => window.devicePixelRatio") == 1.5
        click_every_case(agent, "visible")
        click_every_case(agent, "cdp")
    finally:
        agent.act("press", key="Control+0")


@pytest.fixture
def scaled_stack(pages: PageServer, tmp_path) -> Iterator[Stack]:
    require(chromium_path() is not None, "Chromium")
    require(have_program("Xvfb"), "Xvfb")
    running = start_stack(tmp_path, pages.url("main.html"),
                          # The window in DIPs: twice that in pixels still fits the 1280x800 screen.
                          sidecar_args=["--chromium-flag=--force-device-scale-factor=2",
                                        "--window-size", "620x390"])
    try:
        yield running
    finally:
        running.stop()


def test_both_modes_at_device_scale_factor_2(scaled_stack: Stack, pages: PageServer) -> None:
    agent = Agent(scaled_stack.url)
    assert _evaluate(agent, "() => window.devicePixelRatio") == 2
    click_every_case(agent, "visible")
    click_every_case(agent, "cdp")
