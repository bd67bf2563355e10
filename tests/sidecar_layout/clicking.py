"""Click every button of a page at the centre of its /layout screen bounds, through desktopd,
and check that the page recorded a click on exactly that button."""

from __future__ import annotations

from typing import Any

from .harness import Chromium, Desktopd

WAIT_FOR_CLICK_JS = """
new Promise((resolve) => {
  const start = performance.now(), seen = %d;
  (function check() {
    if (window.__clicks.length > seen || performance.now() - start > 10000)
      resolve(window.__clicks.slice(seen));
    else requestAnimationFrame(check);
  })();
})
"""
NEXT_FRAME_JS = "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"
# Resolves after the page rendered this many animation frames (a wait measured in the page's
# own work, at least a frame's time each).
FRAMES_JS = """
new Promise((resolve) => {
  let left = %d;
  (function tick() { if (--left <= 0) resolve(true); else requestAnimationFrame(tick); })();
})
"""


def session_of(page: Any, node: dict) -> Any:
    """The CDP session a node's backendDOMNodeId belongs to (its OOPIF's, or the page's)."""
    return page if node["targetId"] == page.target_id else page.children[node["targetId"]]


async def element_id(page: Any, node: dict) -> str:
    reply = await session_of(page, node).send("DOM.describeNode",
                                              {"backendNodeId": node["backendDOMNodeId"]})
    attributes = reply["node"].get("attributes", [])
    return dict(zip(attributes[::2], attributes[1::2])).get("id", "")


async def scroll_into_view(page: Any, node: dict) -> None:
    session = session_of(page, node)
    resolved = await session.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})
    await session.send("Runtime.callFunctionOn", {
        "objectId": resolved["object"]["objectId"],
        "functionDeclaration": "function () { this.scrollIntoView({block: 'center', inline: 'center'}); }"})


def buttons_of(layout: dict) -> list[dict]:
    return [n for n in layout["tabs"][0]["layout"]["nodes"] if n["role"]["value"] == "button"]


async def click_every_button(chromium: Chromium, desktopd: Desktopd, page: Any,
                             expected: int) -> list[str]:
    """Returns the ids clicked; asserts each click hit its own button."""
    names = [n["name"]["value"] for n in buttons_of(await chromium.layout(roles="button"))]
    assert len(names) == expected, names
    assert len(set(names)) == len(names), f"button names must be unique in the test page: {names}"
    clicked = []
    for name in names:
        node = _by_name(await chromium.layout(roles="button"), name)
        if not node["fullyVisible"]:
            await scroll_into_view(page, node)
            await chromium.evaluate(page, NEXT_FRAME_JS)
            node = _by_name(await chromium.layout(roles="button"), name)
            assert node["fullyVisible"], f"{name} not fully visible after scrolling it into view"
        want = await element_id(page, node)
        count = len(await chromium.evaluate(page, "window.__clicks"))
        center = node["screen"]["center"]
        await desktopd.tap(center["x"], center["y"])
        got = await chromium.evaluate(page, WAIT_FOR_CLICK_JS % count)
        assert got == [want], (f"clicking {name!r} at {center} (screen box {node['screen']}) "
                               f"recorded {got}, expected [{want!r}]")
        clicked.append(want)
    return clicked


def _by_name(layout: dict, name: str) -> dict:
    matches = [n for n in buttons_of(layout) if n["name"]["value"] == name]
    assert len(matches) == 1, f"{len(matches)} buttons named {name!r}"
    return matches[0]
