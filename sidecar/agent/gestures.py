"""What the kinds of POST /act are made of: the act's context (the connection, the tab, the
mode and its input), aiming at an element (scrolled into view, its point re-read), bringing the
tab to the front, and gestures that return once the page saw them (visible mode)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from desktopd_kit import AsyncDesktop
from httpapi.errors import ApiError

from ..cdp.connection import CDPConnection, CDPError
from ..cdp.pages import visibility_state
from ..cdp.targets import ChildTarget, PageTarget, TargetTracker
from ..layout.runtime.seams import TabHealth
from ..layout import LayoutService
from .key_combos import MODIFIERS, parse_combo
from .pointer import CdpInput, Input, VisibleInput
from .aim import quick_aim
from .compositor_aim import PointerCheck, confirm_pointer, exact_bounds
from .page_scripts import NEXT_FRAME, NEXT_FRAME_FUNCTION, PAINTED, TO_MIDDLE_DRAWN
from .resolve import Element, element_node
from .session import AgentSession
from ..page_js import load_js

POLL_S = 0.1
FRONT_WAIT_S = 2.0
# X input reaches the page a moment after desktopd answered: visible gestures wait (at most
# this long) for the page to see the gesture's last event.
ARRIVAL_S = 1.0


# Resolves when the element's window sees an event of this type (or after ms): installed before
# the X input is sent, awaited after.
_ARRIVAL = load_js("sidecar.agent", "arrival.js")
_TEXT_ARRIVED = load_js("sidecar.agent", "text_arrived.js")
_SELECT_ALL = load_js("sidecar.agent", "select_all.js")
_SELECT_OPTIONS = load_js("sidecar.agent", "select_options.js")


@dataclass
class ActContext:
    conn: CDPConnection
    tracker: TargetTracker
    layout: LayoutService
    agent: AgentSession
    health: TabHealth
    page: PageTarget
    mode: str
    timeout: float
    desktopd: AsyncDesktop | None
    evaluate_allowed: bool

    @property
    def input(self) -> Input:
        if self.mode == "cdp":
            return CdpInput(self.page, self.timeout)
        return VisibleInput(self.visible_desktopd())

    def visible_desktopd(self) -> AsyncDesktop:
        if self.desktopd is None:
            raise ApiError(409, "visible_mode_unavailable",
                           "visible mode acts through desktopd, and this sidecar has no desktopd URL "
                           "(set SIDECAR_DESKTOPD_URL, e.g. http://127.0.0.1:8080); use mode=cdp",
                           field="mode")
        return self.desktopd


class ElementSummary(TypedDict):
    """The element an act ran on, as its answer names it."""
    ref: str
    role: str | None
    name: str


class PointJson(TypedDict):
    """Where the input went: screen pixels (visible mode) or the viewport's CSS px (cdp)."""
    x: float
    y: float
    space: Literal["screen", "viewport"]
    # Before a visible press where the compositor's window is checked (Wayland): what the page saw.
    pointer_check: NotRequired[PointerCheck]


Aimed = tuple[ElementSummary, PointJson, tuple[float, float]]


async def _ax_summary(element: Element, timeout: float) -> ElementSummary:
    """The element's role and name from the accessibility tree (one node, no relatives)."""
    try:
        reply = await element.session.send("Accessibility.getPartialAXTree", {
            "backendNodeId": element.key.backend_node_id, "fetchRelatives": False}, timeout=timeout)
    except CDPError:
        return {"ref": element.ref, "role": None, "name": ""}
    nodes = reply.get("nodes")
    node = nodes[0] if nodes else None
    role, name = (node.get("role"), node.get("name")) if node else (None, None)
    return _summary(element, role.get("value") if role else None, name.get("value", "") if name else "")


def _summary(element: Element, role: object, name: object) -> ElementSummary:
    """The element's ref, role and name (as the AX tree or /layout gave them: strings)."""
    return {"ref": element.ref, "role": role if isinstance(role, str) else None,
            "name": name if isinstance(name, str) else ""}


async def aim(ctx: ActContext, element: Element, *, presses: bool = False) -> Aimed:
    """Scroll the element into view and re-read its box: (element summary, point json, point).
    ``presses``: the act presses there (visible mode checks the page sees the pointer there first,
    where the compositor's window must be checked: compositor_aim.py)."""
    check = ctx.layout.window_check if ctx.mode == "visible" else None
    if check is None:
        aimed = await _aim_on_page(ctx, element)
    elif not presses:
        await exact_bounds(ctx.page, check)
        aimed = await _aim_on_page(ctx, element)
    else:
        (summary, point_json, point), report = await confirm_pointer(
            ctx.page, element, check, ctx.input, lambda: _aim_on_page(ctx, element),
            lambda aimed: aimed[2], ctx.timeout)
        aimed = summary, {**point_json, "pointer_check": report}, point
    return aimed


async def _aim_on_page(ctx: ActContext, element: Element) -> Aimed:
    aimed = await _aim_at(ctx, element)
    if element.session is not element.page:
        # The browser sends input to an out-of-process iframe by the page's last frame on
        # screen: until the page drew one after a scroll (this act's or an earlier one's), a
        # click at the iframe's new place reaches the page's iframe element instead.
        await ctx.page.send("Runtime.evaluate", {"expression": PAINTED, "awaitPromise": True},
                            timeout=ctx.timeout)
    return aimed


async def _aim_at(ctx: ActContext, element: Element) -> Aimed:
    # Without reading the whole tab when one in-page measure can tell (aim.py), in both modes.
    quick, summary = await asyncio.gather(
        quick_aim(element, ctx.agent.refs(ctx.page.target_id).main_frame_id, ctx.timeout),
        _ax_summary(element, ctx.timeout))
    if quick is not None:
        if ctx.mode == "cdp":
            x, y = quick.viewport
            return summary, {"x": round(x, 2), "y": round(y, 2), "space": "viewport"}, quick.viewport
        sx, sy = quick.screen
        return summary, {"x": sx, "y": sy, "space": "screen"}, (float(sx), float(sy))
    try:
        await element.session.send("DOM.scrollIntoViewIfNeeded",
                                   {"backendNodeId": element.key.backend_node_id}, timeout=ctx.timeout)
    except CDPError as exc:
        raise ApiError(409, "not_rendered", f"ref {element.ref} cannot be scrolled into view: "
                       f"{exc.message}", field="ref") from None
    if element.session is not element.page:
        # An out-of-process iframe asks its parent's renderer to scroll the page too, and that
        # lands a frame or two later: let the tab render it before the box is read.
        await ctx.page.send("Runtime.evaluate", {"expression": NEXT_FRAME,
                                                 "awaitPromise": True}, timeout=ctx.timeout)
    node = await element_node(ctx.layout, element, ctx.health)
    if ctx.mode == "visible" and not node.get("visible"):
        # A scroll inside a frame can land after the read: once more, after a frame, in full.
        await element.call(NEXT_FRAME_FUNCTION, timeout=ctx.timeout, await_promise=True)
        node = await element_node(ctx.layout, element, ctx.health, fresh=True)
    if node.get("visible") and node.get("hittable") is False:
        # Something else would take the click there (a sticky header over an element the
        # scroll left at the edge): once more from the middle of the view.
        await element.call(TO_MIDDLE_DRAWN, timeout=ctx.timeout, await_promise=True)
        node = await element_node(ctx.layout, element, ctx.health, fresh=True)
    role, name = node.get("role"), node.get("name")
    summary = _summary(element, role.get("value") if role else None, name.get("value", "") if name else "")
    viewport_box, screen_box = node.get("viewport"), node.get("screen")
    if ctx.mode == "cdp":
        if viewport_box is None:
            raise ApiError(409, "not_rendered", f"ref {element.ref} has no box", field="ref")
        box = viewport_box["borderBox"]
        point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        return summary, {"x": round(point[0], 2), "y": round(point[1], 2), "space": "viewport"}, point
    if not node.get("visible") or screen_box is None:
        raise ApiError(409, "not_visible", f"ref {element.ref} is not on screen after scrolling it "
                       "into view (covered, clipped or zero-sized)", field="ref")
    # The centre of the largest visible part (a link wrapped over two lines, a box clipped by
    # its frame), as the quick measure takes it.
    at = screen_box.get("clickPoint") or screen_box["center"]
    return summary, {"x": at["x"], "y": at["y"], "space": "screen"}, (at["x"], at["y"])


async def ensure_front(ctx: ActContext) -> None:
    """Visible input reaches only the tab shown in its window: bring it to the front first."""
    async def state() -> str | None:
        return await visibility_state(ctx.page, ctx.timeout)
    if await state() == "visible":
        return
    await ctx.tracker.activate(ctx.page)
    for _ in range(int(FRONT_WAIT_S / POLL_S)):
        if await state() == "visible":
            return
        await asyncio.sleep(POLL_S)


async def gesture(ctx: ActContext, element: Element | None, event: str,
                   gesture: Coroutine[object, object, None]) -> None:
    """Run an input coroutine; in visible mode, return once the page saw its ``event`` (bounded),
    so what the act reports (and the next snapshot) follows the input."""
    session = element.session if element is not None else ctx.page
    if ctx.mode == "visible":
        await _until_arrived(ctx, element, event, session, gesture)
    else:
        await gesture               # CDP input answers once the page handled the event
    await _after_handlers(ctx, session)


async def _until_arrived(ctx: ActContext, element: Element | None, event: str,
                         session: PageTarget | ChildTarget, gesture: Coroutine[object, object, None]) -> None:
    """Run visible input and return once the page saw ``event`` (bounded): XTEST input reaches
    the page through the X server and the browser, after the call that sent it answered."""
    try:
        # Armed before the input is sent, and known to be: a listener installed by a call still
        # queued behind the input would miss the event and wait out its whole bound.
        promise = await _arm_arrival(ctx, element, event)
    except BaseException:
        gesture.close()             # never started
        raise
    await gesture
    if promise is not None:
        try:
            await session.send("Runtime.awaitPromise", {"promiseObjectId": promise, "returnByValue": True},
                               timeout=ARRIVAL_S + 0.5)
        except (ApiError, CDPError, asyncio.TimeoutError):
            pass                    # the page moved on (navigated, closed) or never saw it


async def _after_handlers(ctx: ActContext, session: PageTarget | ChildTarget) -> None:
    """Return once the event's handlers finished and what they caused was reported. One more call
    queued behind them answers once they ran, or never while a dialog they opened waits (so race
    the modal); and the renderer sends the events they raised (a navigation a click handler asked
    for) before that call's answer, where the input's own answer can overtake them."""
    events = ctx.agent.events(ctx.page.target_id)
    flush = asyncio.ensure_future(session.send("Runtime.evaluate", {"expression": "0"},
                                               timeout=ARRIVAL_S))
    modal = asyncio.ensure_future(events.modal.wait())
    try:
        await asyncio.wait({flush, modal}, timeout=ARRIVAL_S, return_when=asyncio.FIRST_COMPLETED)
    finally:
        modal.cancel()
        if not flush.done():
            flush.cancel()
        elif not flush.cancelled():
            flush.exception()       # retrieved: an error here only means the page moved on


async def _arm_arrival(ctx: ActContext, element: Element | None, event: str) -> str | None:
    """A promise in the page that resolves once its window sees ``event`` (or after ARRIVAL_S):
    its object id, None if the page could not install it."""
    ms = int(ARRIVAL_S * 1000)
    try:
        if element is not None:
            return await element.call_pending(_ARRIVAL, event, ms, timeout=ctx.timeout)
        else:
            reply = await ctx.page.send("Runtime.evaluate", {
                "expression": f"({_ARRIVAL}).call(document, {event!r}, {ms})"}, timeout=ctx.timeout)
    except CDPError:
        return None
    return (reply.get("result") or {}).get("objectId")


async def _focus(ctx: ActContext, element: Element, point: tuple[float, float]) -> None:
    if ctx.mode == "visible":
        # A real click gives the window and the field the keyboard, as a person's would.
        await gesture(ctx, element, "pointerup", ctx.input.click(point[0], point[1], "left", 1, ()))
    else:
        await element.session.send("DOM.focus", {"backendNodeId": element.key.backend_node_id},
                                   timeout=ctx.timeout)


async def type_into(ctx: ActContext, element: Element, point: tuple[float, float], text: str,
                     slowly: bool) -> None:
    await _focus(ctx, element, point)
    await element.call(_SELECT_ALL, timeout=ctx.timeout)
    if text:
        await ctx.input.type_text(text, slowly)
        if ctx.mode == "visible":
            await _until_typed(ctx, element, text)
    else:
        await gesture(ctx, element, "keyup", ctx.input.press(parse_combo("Delete")))


async def _until_typed(ctx: ActContext, element: Element, text: str) -> None:
    """X key events arrive after desktopd answered: wait (bounded) until the field holds them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ARRIVAL_S + 0.001 * 40 * len(text)
    while loop.time() < deadline:
        if await element.call(_TEXT_ARRIVED, text, timeout=ctx.timeout):
            return
        await asyncio.sleep(0.02)


async def select_options(ctx: ActContext, element: Element, values: list[str]) -> list[str]:
    result = await element.call(_SELECT_OPTIONS, values, timeout=ctx.timeout) or {}
    if "error" in result:
        raise ApiError(422, "not_selectable", f"ref {element.ref}: {result['error']}", field="values")
    return result["selected"]


def modifiers(names: list[str]) -> tuple[str, ...]:
    return tuple(MODIFIERS[name.lower()] for name in names)
