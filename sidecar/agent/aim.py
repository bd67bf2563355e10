"""Where to act on an element without reading the whole tab.

An element of the tab's own document: one in-page call measures the element's boxes
(getClientRects: one per line of a wrapped link) clipped to the visible viewport, takes the
centre of the largest visible one, asks the browser what a click there would hit
(elementFromPoint, in the element's own shadow root when it has one), and reads the window's
geometry; with Page.getLayoutMetrics that gives the view (the viewport's place on the screen, the
device pixel ratio, page zoom) as /layout's screen boxes use it.

An element of an iframe the page's renderer draws (same site): DOM.getContentQuads gives its boxes
in the main frame's viewport already, through every frame's offset, border, scroll, transform and
zoom; the browser's own hit test (DOM.getNodeForLocation, which descends into such frames)
confirms a click at the centre of the largest visible one reaches the element.

An element of an out-of-process iframe (another site) whose parent is the page: the in-page
measure in the iframe gives its point in the iframe's viewport; the iframe element, measured in
the page, adds its content box's place and checks a click there reaches the iframe. That sum is
exact only while the iframe's CSS px are the page's, so an iframe under a transform other than a
translation, under CSS zoom, or at another device pixel ratio takes the whole read instead.

Nothing of /layout's change tracking is touched. Elements of iframes nested in an out-of-process
iframe take the whole /layout read (resolve.element_node); so do elements not visible or not hit
even from the middle of the view (covered by a sticky header, a checkbox under its label): the
whole read explains why.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from httpapi.errors import ApiError

from ..cdp.connection import CDPError
from ..cdp.targets import ChildTarget
from ..layout.answering.answer import view_of
from ..layout.geometry.click_point import largest_centre, screen_point
from ..layout.geometry.spaces import Rect, View
from ..layout.probing.probe import parse_probe
from .page_scripts import CENTRE, NEXT_FRAME, TO_MIDDLE
from .resolve import Element
from ..page_js import load_js

# The window's geometry, as /layout's probe reads it (here without its change tracking).
_WINDOW = load_js("sidecar.agent", "window.js")

# {x, y, parts} (CSS px from the visual viewport's top-left; parts: [left, top, right, bottom] of
# each visible box) or null. Scrolls the element to the middle first when no part of it can be
# hit where it is.
_MEASURE = load_js("sidecar.agent", "measure.js") % (CENTRE, _WINDOW)
# Whether a click at (x, y) of the element's own viewport reaches it.
_HIT = load_js("sidecar.agent", "hit.js")
# An out-of-process iframe's element, placed in the page by its iframe element (``this``):
# ``parts`` (the element's visible boxes in CSS px of the iframe's viewport) moved to the
# iframe's content box and clipped to the page's visual viewport; the centre of the largest, if
# a click there reaches the iframe: {x, y} in the page's visual viewport and {local} in the
# iframe's. Only while the iframe's CSS px are the page's: the same device pixel ratio, no CSS
# zoom and no transform but translation on the iframe or above it (a transformed iframe draws
# its content elsewhere than the offset says). Else null.
_OWNER = load_js("sidecar.agent", "owner.js") % (CENTRE, _WINDOW)
# Whether a node is this element or inside it (its shadow roots too).
_CONTAINS = load_js("sidecar.agent", "contains.js")


@dataclass(frozen=True)
class Aim:
    viewport: tuple[float, float]     # CSS px from the visual viewport's top-left
    screen: tuple[int, int]           # desktop pixels


async def quick_aim(element: Element, main_frame_id: str, timeout: float) -> Aim | None:
    """The point to act at, the element scrolled into view if need be; None when the whole read
    must decide (see the module)."""
    if isinstance(element.session, ChildTarget):
        return await _child_frame_aim(element, element.session, timeout)
    if element.key.frame_id != main_frame_id:
        return await _frame_aim(element, timeout)
    point, metrics = await asyncio.gather(
        element.call(_MEASURE, timeout=timeout),
        element.page.send("Page.getLayoutMetrics", timeout=timeout))
    if not point:
        return None
    view = view_of(parse_probe({"result": {"value": point["window"]}}), metrics)
    return _aim(view, float(point["x"]), float(point["y"]))


def _aim(view: View, x: float, y: float) -> Aim:
    return Aim((x, y), screen_point((x, y), view))


async def _frame_aim(element: Element, timeout: float) -> Aim | None:
    """An element of a same-process iframe: measured where it is, else from the middle."""
    for attempt in range(2):
        if attempt:
            await element.call(TO_MIDDLE, timeout=timeout)
        page = element.page
        quads, metrics, window = await asyncio.gather(
            page.send("DOM.getContentQuads", {"objectId": element.object_id}, timeout=timeout),
            page.send("Page.getLayoutMetrics", timeout=timeout),
            page.send("Runtime.evaluate", {"expression": f"({_WINDOW})", "returnByValue": True},
                      timeout=timeout),
            return_exceptions=True)
        if isinstance(quads, BaseException) or isinstance(metrics, BaseException) \
                or isinstance(window, BaseException):
            failure = next(r for r in (quads, metrics, window) if isinstance(r, BaseException))
            if isinstance(failure, CDPError):
                return None         # no box (display:none...): the whole read says so
            raise failure
        try:
            view = view_of(parse_probe(window), metrics)
        except ValueError:
            return None             # the page threw (navigating away): the whole read decides
        point = _largest_visible_centre(quads.get("quads") or [], view)
        if point is not None and await _reaches(element, point, view, timeout):
            return _aim(view, *point)
    return None


def _largest_visible_centre(quads: list[list[float]], view: View) -> tuple[float, float] | None:
    """The centre of the largest part of the quads' boxes inside the visual viewport (CSS px)."""
    parts = []
    for quad in quads:
        xs, ys = quad[0::2], quad[1::2]
        left, top = max(min(xs), 0.0), max(min(ys), 0.0)
        right, bottom = min(max(xs), view.visual_width), min(max(ys), view.visual_height)
        if right - left >= 1 and bottom - top >= 1:
            parts.append(Rect(left, top, right - left, bottom - top))
    return largest_centre(parts)


async def _reaches(element: Element, point: tuple[float, float], view: View, timeout: float) -> bool:
    """Whether the browser's hit test at ``point`` finds the element or something inside it."""
    page = element.page
    try:
        # getNodeForLocation hit-tests the layout view: document coordinates, CSS px.
        hit = await page.send("DOM.getNodeForLocation", {
            "x": round(point[0] + view.visual_x), "y": round(point[1] + view.visual_y),
            "includeUserAgentShadowDOM": True, "ignorePointerEventsNone": False}, timeout=timeout)
    except CDPError:
        return False                # nothing there
    if hit.get("backendNodeId") == element.key.backend_node_id:
        return True
    if hit.get("frameId") != element.key.frame_id or hit.get("backendNodeId") is None:
        return False
    try:
        node = await page.send("DOM.resolveNode", {"backendNodeId": hit["backendNodeId"]},
                               timeout=timeout)
        reply = await page.send("Runtime.callFunctionOn", {
            "objectId": element.object_id, "functionDeclaration": _CONTAINS,
            "arguments": [{"objectId": node["object"]["objectId"]}], "returnByValue": True},
            timeout=timeout)
    except CDPError:
        return False
    return (reply.get("result") or {}).get("value") is True


async def _child_frame_aim(element: Element, child: ChildTarget, timeout: float) -> Aim | None:
    """An element of an out-of-process iframe the page itself holds: measured in the iframe's
    viewport, then carried into the page's through the iframe element (_OWNER)."""
    page = element.page
    if child.parent_target_id != page.target_id or element.key.frame_id != child.target_id:
        return None                 # nested deeper: the whole read
    measuring = asyncio.ensure_future(element.call(_MEASURE, timeout=timeout))
    finding = asyncio.ensure_future(page.send("DOM.getFrameOwner", {"frameId": child.target_id}, timeout=timeout))
    await asyncio.wait((measuring, finding))
    for call in (measuring, finding):
        failure = call.exception()
        if isinstance(failure, (CDPError, ApiError)):
            return None
        if failure is not None:
            raise failure
    local, owner = measuring.result(), finding.result()
    if not local:
        return None
    if local["scrolled"]:
        # The iframe asked the page to scroll it into view too, which lands a frame or two later.
        await page.send("Runtime.evaluate", {"expression": NEXT_FRAME, "awaitPromise": True},
                        timeout=timeout)
    try:
        resolved = await page.send("DOM.resolveNode", {"backendNodeId": owner["backendNodeId"]},
                                   timeout=timeout)
        point, metrics = await asyncio.gather(
            page.send("Runtime.callFunctionOn", {
                "objectId": resolved["object"]["objectId"], "functionDeclaration": _OWNER,
                "arguments": [{"value": local["parts"]}, {"value": local["window"]["dpr"]}],
                "returnByValue": True}, timeout=timeout),
            page.send("Page.getLayoutMetrics", timeout=timeout))
    except CDPError:
        return None
    value = (point.get("result") or {}).get("value")
    if not value:
        return None
    moved = value["local"]
    if abs(moved["x"] - local["x"]) > 0.01 or abs(moved["y"] - local["y"]) > 0.01:
        # The page hides part of the iframe: the element's largest part left visible is another
        # one than the iframe alone shows; a click there must reach the element too.
        if not await element.call(_HIT, moved["x"], moved["y"], timeout=timeout):
            return None
    view = view_of(parse_probe({"result": {"value": value["window"]}}), metrics)
    return _aim(view, float(value["x"]), float(value["y"]))
