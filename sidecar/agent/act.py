"""POST /act: one act on an element named by its ref, in visible mode (desktopd's XTEST input at
the element's screen box, re-read after scrolling it into view) or cdp mode (CDP input at its
viewport box), answering with what happened: the element, the point, a navigation, a dialog."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from httpapi.bounded import within
from httpapi.errors import ApiError

from ..cdp.connection import CDPConnection, CDPError
from ..cdp.targets import PageTarget, TargetTracker, close_page
from ..browser.tab_health import TabHealth
from ..layout import LayoutService
from .key_combos import MODIFIERS, parse_combo
from .pointer import CdpInput, DesktopdClient, Input, VisibleInput
from .aim import quick_aim
from .page_scripts import NEXT_FRAME, NEXT_FRAME_FUNCTION, PAINTED, TO_MIDDLE_DRAWN
from .resolve import Element, element_node, resolve
from .events import TabEvents
from .session import AgentSession

DEFAULT_WAIT_S = 10.0          # for a navigation an act started
CONDITION_WAIT_S = 5.0         # for a wait act's condition
# Kinds whose visible mode goes through desktopd.
VISIBLE_KINDS = frozenset({"click", "type", "press", "hover", "drag", "fill"})
POLL_S = 0.1
FRONT_WAIT_S = 2.0
# X input reaches the page a moment after desktopd answered: visible gestures wait (at most
# this long) for the page to see the gesture's last event.
ARRIVAL_S = 1.0
# A navigation asked for but not started within this long was cancelled or became a download.
REQUEST_GRACE_S = 1.0

# Resolves when the element's window sees an event of this type (or after ms): installed before
# the X input is sent, awaited after.
_ARRIVAL = """function (type, ms) {
  const win = this.ownerDocument ? this.ownerDocument.defaultView : window;
  return new Promise(r => {
    win.addEventListener(type, () => r(true), {once: true, capture: true});
    setTimeout(() => r(false), ms);
  });
}"""
_TEXT_ARRIVED = """function (text) {
  const value = 'value' in this ? String(this.value) : this.textContent;
  return value.includes(text);
}"""
_SELECT_ALL = """function () {
  this.focus();
  if (typeof this.select === 'function' && !(this instanceof HTMLSelectElement)) { this.select(); return true; }
  if (this.isContentEditable) {
    const range = document.createRange(); range.selectNodeContents(this);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range); return true;
  }
  return false;
}"""
_SELECT_OPTIONS = """function (wanted) {
  if (!(this instanceof HTMLSelectElement)) return {error: 'not a select element'};
  const chosen = [];
  for (const want of wanted) {
    const option = [...this.options].find(o => o.value === want) ||
                   [...this.options].find(o => o.label === want || o.text.trim() === want);
    if (!option) return {error: 'no option with value or label ' + JSON.stringify(want)};
    chosen.push(option);
    if (!this.multiple) break;
  }
  for (const o of this.options) o.selected = chosen.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map(o => o.value)};
}"""
_CHECKABLE = """function () {
  const t = this.type;
  if (this instanceof HTMLInputElement && (t === 'checkbox' || t === 'radio')) return {checked: this.checked};
  const state = this.getAttribute('aria-checked');
  if (state !== null) return {checked: state === 'true'};
  return null;
}"""
_TAG = "function () { return this.tagName.toLowerCase(); }"


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
    desktopd: DesktopdClient | None
    evaluate_allowed: bool

    @property
    def input(self) -> Input:
        if self.mode == "cdp":
            return CdpInput(self.page, self.timeout)
        return VisibleInput(self.visible_desktopd())

    def visible_desktopd(self) -> DesktopdClient:
        if self.desktopd is None:
            raise ApiError(409, "visible_mode_unavailable",
                           "visible mode acts through desktopd, and this sidecar has no desktopd URL "
                           "(set SIDECAR_DESKTOPD_URL, e.g. http://127.0.0.1:8080); use mode=cdp",
                           field="mode")
        return self.desktopd


async def _ax_summary(element: Element, timeout: float) -> dict[str, Any]:
    """The element's role and name from the accessibility tree (one node, no relatives)."""
    try:
        reply = await element.session.send("Accessibility.getPartialAXTree", {
            "backendNodeId": element.key.backend_node_id, "fetchRelatives": False}, timeout=timeout)
    except CDPError:
        return {"ref": element.ref, "role": None, "name": ""}
    nodes = reply.get("nodes") or [{}]
    return await _element_summary(element, nodes[0])


async def _element_summary(element: Element, node: dict[str, Any]) -> dict[str, Any]:
    return {"ref": element.ref, "role": (node.get("role") or {}).get("value"),
            "name": (node.get("name") or {}).get("value", "")}


async def aim(ctx: ActContext, element: Element) -> tuple[dict[str, Any], dict[str, Any], tuple[float, float]]:
    """Scroll the element into view and re-read its box: (element summary, point json, point)."""
    aimed = await _aim_at(ctx, element)
    if element.session is not element.page:
        # The browser sends input to an out-of-process iframe by the page's last frame on
        # screen: until the page drew one after a scroll (this act's or an earlier one's), a
        # click at the iframe's new place reaches the page's iframe element instead.
        await ctx.page.send("Runtime.evaluate", {"expression": PAINTED, "awaitPromise": True},
                            timeout=ctx.timeout)
    return aimed


async def _aim_at(ctx: ActContext, element: Element) -> tuple[dict[str, Any], dict[str, Any], tuple[float, float]]:
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
    node, viewport = await element_node(ctx.layout, element, ctx.health)
    if ctx.mode == "visible" and not node.get("visible"):
        # A scroll inside a frame can land after the read: once more, after a frame, in full.
        await element.call(NEXT_FRAME_FUNCTION, timeout=ctx.timeout, await_promise=True)
        node, viewport = await element_node(ctx.layout, element, ctx.health, fresh=True)
    if node.get("visible") and node.get("hittable") is False:
        # Something else would take the click there (a sticky header over an element the
        # scroll left at the edge): once more from the middle of the view.
        await element.call(TO_MIDDLE_DRAWN, timeout=ctx.timeout, await_promise=True)
        node, viewport = await element_node(ctx.layout, element, ctx.health, fresh=True)
    summary = await _element_summary(element, node)
    if ctx.mode == "cdp":
        box = node["viewport"]["borderBox"]
        point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        return summary, {"x": round(point[0], 2), "y": round(point[1], 2), "space": "viewport"}, point
    if not node.get("visible"):
        raise ApiError(409, "not_visible", f"ref {element.ref} is not on screen after scrolling it "
                       "into view (covered, clipped or zero-sized)", field="ref")
    # The centre of the largest visible part (a link wrapped over two lines, a box clipped by
    # its frame), as the quick measure takes it.
    point = node["screen"].get("clickPoint") or node["screen"]["center"]
    return summary, {"x": point["x"], "y": point["y"], "space": "screen"}, (point["x"], point["y"])


async def _ensure_front(ctx: ActContext) -> None:
    """Visible input reaches only the tab shown in its window: bring it to the front first."""
    async def state() -> str:
        reply = await ctx.page.send("Runtime.evaluate", {"expression": "document.visibilityState",
                                                         "returnByValue": True}, timeout=ctx.timeout)
        return reply.get("result", {}).get("value", "")
    if await state() == "visible":
        return
    await ctx.conn.send("Target.activateTarget", {"targetId": ctx.page.target_id})
    for _ in range(int(FRONT_WAIT_S / POLL_S)):
        if await state() == "visible":
            return
        await asyncio.sleep(POLL_S)


async def _gesture(ctx: ActContext, element: Element | None, event: str,
                   gesture: Coroutine[Any, Any, None]) -> None:
    """Run an input coroutine; in visible mode, return once the page saw its ``event`` (bounded),
    so what the act reports (and the next snapshot) follows the input."""
    if ctx.mode != "visible":
        await gesture
        return
    session = element.session if element is not None else ctx.page
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
    # The event's handlers run after the event is seen; one more call queued behind them
    # answers once they finished, or never while a dialog they opened waits (so race the modal).
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
            reply = await element.session.send("Runtime.callFunctionOn", {
                "objectId": element.object_id, "functionDeclaration": _ARRIVAL,
                "arguments": [{"value": event}, {"value": ms}]}, timeout=ctx.timeout)
        else:
            reply = await ctx.page.send("Runtime.evaluate", {
                "expression": f"({_ARRIVAL}).call(document, {event!r}, {ms})"}, timeout=ctx.timeout)
    except CDPError:
        return None
    return (reply.get("result") or {}).get("objectId")


async def _focus(ctx: ActContext, element: Element, point: tuple[float, float]) -> None:
    if ctx.mode == "visible":
        # A real click gives the window and the field the keyboard, as a person's would.
        await _gesture(ctx, element, "pointerup", ctx.input.click(point[0], point[1], "left", 1, ()))
    else:
        await element.session.send("DOM.focus", {"backendNodeId": element.key.backend_node_id},
                                   timeout=ctx.timeout)


async def _type_into(ctx: ActContext, element: Element, point: tuple[float, float], text: str,
                     slowly: bool) -> None:
    await _focus(ctx, element, point)
    await element.call(_SELECT_ALL, timeout=ctx.timeout)
    if text:
        await ctx.input.type_text(text, slowly)
        if ctx.mode == "visible":
            await _until_typed(ctx, element, text)
    else:
        await _gesture(ctx, element, "keyup", ctx.input.press(parse_combo("Delete")))


async def _until_typed(ctx: ActContext, element: Element, text: str) -> None:
    """X key events arrive after desktopd answered: wait (bounded) until the field holds them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ARRIVAL_S + 0.001 * 40 * len(text)
    while loop.time() < deadline:
        if await element.call(_TEXT_ARRIVED, text, timeout=ctx.timeout):
            return
        await asyncio.sleep(0.02)


async def _select(ctx: ActContext, element: Element, values: list[str]) -> list[str]:
    result = await element.call(_SELECT_OPTIONS, values, timeout=ctx.timeout) or {}
    if "error" in result:
        raise ApiError(422, "not_selectable", f"ref {element.ref}: {result['error']}", field="values")
    return result["selected"]


def _modifiers(names: list[str]) -> tuple[str, ...]:
    return tuple(MODIFIERS[name.lower()] for name in names)


async def _act(ctx: ActContext, body: dict[str, Any]) -> dict[str, Any]:
    kind = body["kind"]
    out: dict[str, Any] = {}
    if kind in ("click", "hover", "type", "scroll_into_view", "select", "drag") or \
            (kind == "press" and body.get("ref")) or (kind == "evaluate" and body.get("ref")):
        element = await resolve(ctx.agent, ctx.page, body["ref"], ctx.timeout)
    if kind in ("click", "hover", "type", "scroll_into_view", "drag"):
        if ctx.mode == "visible":
            await _ensure_front(ctx)
        out["element"], out["point"], point = await aim(ctx, element)
    if kind == "click":
        await _gesture(ctx, element, "pointerup", ctx.input.click(
            point[0], point[1], body["button"], 2 if body["double"] else 1, _modifiers(body["modifiers"])))
    elif kind == "hover":
        await _gesture(ctx, element, "pointermove", ctx.input.move(*point))
    elif kind == "type":
        await _type_into(ctx, element, point, body["text"], body["slowly"])
        if body["submit"]:
            await _gesture(ctx, element, "keyup", ctx.input.press(parse_combo("Enter")))
    elif kind == "press":
        if body.get("ref"):
            await element.session.send("DOM.focus", {"backendNodeId": element.key.backend_node_id},
                                       timeout=ctx.timeout)
            out["element"] = {"ref": element.ref}
        elif ctx.mode == "visible":
            await _ensure_front(ctx)
        await _gesture(ctx, element if body.get("ref") else None, "keyup",
                       ctx.input.press(parse_combo(body["key"])))
    elif kind == "drag":
        target = await resolve(ctx.agent, ctx.page, body["to_ref"], ctx.timeout)
        out["to_element"], out["to_point"], end = await aim(ctx, target)
        _summary, _json, point = await aim(ctx, element)    # the source may have scrolled away
        await _gesture(ctx, target, "pointerup", ctx.input.drag(point, end))
    elif kind == "select":
        out["element"] = {"ref": element.ref}
        out["selected"] = await _select(ctx, element, body["values"])
    elif kind == "fill":
        out["fields"] = [await _fill_one(ctx, field) for field in body["fields"]]
    elif kind == "wait":
        out["waited"] = await _wait(ctx, body)
    elif kind == "evaluate":
        out["result"] = await _evaluate(ctx, body, element if body.get("ref") else None)
    elif kind == "resize":
        window = await ctx.conn.send("Browser.getWindowForTarget", {"targetId": ctx.page.target_id})
        await ctx.conn.send("Browser.setWindowBounds", {"windowId": window["windowId"],
                                                        "bounds": {"windowState": "normal"}})
        await ctx.conn.send("Browser.setWindowBounds", {"windowId": window["windowId"], "bounds": {
            "width": body["width"], "height": body["height"]}})
        out["window"] = {"width": body["width"], "height": body["height"]}
    elif kind == "close":
        if not await close_page(ctx.conn, ctx.page):
            raise ApiError(409, "not_closed", f"Chromium refused to close tab {ctx.page.target_id}")
        out["closed"] = ctx.page.target_id
    return out


async def _fill_one(ctx: ActContext, field: dict[str, Any]) -> dict[str, Any]:
    element = await resolve(ctx.agent, ctx.page, field["ref"], ctx.timeout)
    value = field["value"]
    tag = await element.call(_TAG, timeout=ctx.timeout)
    if tag == "select":
        return {"ref": element.ref, "selected": await _select(
            ctx, element, value if isinstance(value, list) else [str(value)])}
    checkable = await element.call(_CHECKABLE, timeout=ctx.timeout)
    if ctx.mode == "visible":
        await _ensure_front(ctx)
    summary, point_json, point = await aim(ctx, element)
    if checkable is not None:
        want = value if isinstance(value, bool) else str(value).lower() in ("true", "1", "on", "yes")
        if checkable["checked"] != want:
            await _gesture(ctx, element, "pointerup", ctx.input.click(point[0], point[1], "left", 1, ()))
        return {"ref": element.ref, "checked": want, "point": point_json}
    if not isinstance(value, str):
        raise ApiError(422, "invalid_field", f"fields: ref {element.ref} is a text field; give a "
                       "string value", field="fields")
    await _type_into(ctx, element, point, value, False)
    return {"ref": element.ref, "value": value, "point": point_json}


_WAIT_CHECK = """(() => {
  const text = document.body ? document.body.innerText : '';
  return {text, url: location.href, state: document.readyState};
})()"""


async def _wait(ctx: ActContext, body: dict[str, Any]) -> dict[str, Any]:
    if body.get("time"):
        await asyncio.sleep(body["time"])
    wanted = {k: body.get(k) for k in ("text", "text_gone", "url", "load_state") if body.get(k)}
    if not wanted:
        return {"time": body.get("time") or 0}
    budget = body.get("timeout") or CONDITION_WAIT_S
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    while True:
        try:
            reply = await ctx.page.send("Runtime.evaluate", {"expression": _WAIT_CHECK,
                                                             "returnByValue": True}, timeout=ctx.timeout)
            seen = (reply.get("result") or {}).get("value") or {}
        except CDPError:
            seen = {}           # between documents
        if seen and _met(wanted, seen):
            return wanted
        if loop.time() >= deadline:
            # The agent's condition, not the server, failed: a 4xx the agent can act on.
            raise ApiError(408, "wait_timeout", f"not met within {budget:g} s: {wanted}")
        await asyncio.sleep(POLL_S)


def _met(wanted: dict[str, Any], seen: dict[str, Any]) -> bool:
    if "text" in wanted and wanted["text"] not in seen.get("text", ""):
        return False
    if "text_gone" in wanted and wanted["text_gone"] in seen.get("text", ""):
        return False
    if "url" in wanted and wanted["url"] not in seen.get("url", ""):
        return False
    if wanted.get("load_state") == "load" and seen.get("state") != "complete":
        return False
    if wanted.get("load_state") == "domcontentloaded" and seen.get("state") == "loading":
        return False
    return True


async def _evaluate(ctx: ActContext, body: dict[str, Any], element: Element | None) -> Any:
    if not ctx.evaluate_allowed:
        raise ApiError(403, "evaluate_disabled", "this sidecar runs with SIDECAR_AGENT_EVALUATE=0",
                       field="kind")
    function = body["function"]
    if element is not None:
        return await element.call(f"function () {{ return ({function})(this); }}",
                                  timeout=ctx.timeout, await_promise=True)
    reply = await ctx.page.send("Runtime.evaluate", {"expression": f"({function})()",
                                                     "returnByValue": True, "awaitPromise": True},
                                timeout=ctx.timeout)
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        raise ApiError(422, "script_error",
                       (details.get("exception") or {}).get("description") or details.get("text", ""))
    return (reply.get("result") or {}).get("value")


def hung_after(ctx: ActContext, body: dict[str, Any]) -> float:
    """Seconds after which an act counts as hung (504): three CDP call budgets, or for a wait act
    its own pause and condition budget plus one call budget, so that a wait the caller allowed
    60 s answers its own 408 (wait_timeout) rather than being cut off first."""
    limit = ctx.timeout * 3
    if body["kind"] == "wait":
        own = (body.get("time") or 0) + (body.get("timeout") or CONDITION_WAIT_S)
        limit = max(limit, own + ctx.timeout)
    return limit


async def run_act(ctx: ActContext, body: dict[str, Any]) -> dict[str, Any]:
    """The act, raced against a modal state it may open (an alert() in a click handler blocks
    CDP input until answered): the answer reports the dialog instead of hanging."""
    events = ctx.agent.events(ctx.page.target_id)
    modal = events.modal_state()
    if modal is not None:
        raise ApiError(409, "modal_state", {"modal_state": modal,
                                            "message": "the page waits for an answer first"})
    if ctx.mode == "visible" and body["kind"] in VISIBLE_KINDS:
        ctx.visible_desktopd()    # a sidecar without desktopd says so before anything moves
    if body["kind"] == "close" and len(ctx.tracker.pages()) < 2:
        raise ApiError(409, "last_tab", "the browser keeps at least one tab: open another "
                       "(POST /tabs) before closing this one", field="kind")
    navigations, url = events.navigations, ctx.page.url
    dialogs_before = len(events.dialogs)
    choosers_before = len(events.choosers)
    act = ctx.agent.spawn(_act(ctx, body))
    modal_wait = asyncio.ensure_future(events.modal.wait())
    limit = hung_after(ctx, body)
    try:
        await asyncio.wait({act, modal_wait}, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
    finally:
        modal_wait.cancel()
    if act.done():
        out = act.result()         # the act's own errors (stale_ref, 422...) surface here
    elif events.modal.is_set():
        out = {"pending": "the act continues once the modal state is answered"}
    else:
        act.cancel()
        raise ApiError(504, "act_timeout", f"the act did not finish within {limit:g} s")
    if body["kind"] != "close":
        await settle(ctx, events, body.get("timeout") or DEFAULT_WAIT_S)
    out = {"kind": body["kind"], "mode": ctx.mode, "tab": ctx.page.target_id, **out}
    out["navigated"] = events.navigations != navigations
    out["url"] = ctx.page.url
    if out["navigated"] or ctx.page.url != url:
        out["navigated"] = True
    new_dialogs = list(events.dialogs)[dialogs_before:] if len(events.dialogs) > dialogs_before else []
    if new_dialogs:
        out["dialog"] = new_dialogs[-1].json()
    if len(events.choosers) > choosers_before:
        out["file_chooser"] = list(events.choosers)[-1]
    modal = events.modal_state()
    if modal is not None:
        out["modal_state"] = modal
    return out


async def settle(ctx: ActContext, events: TabEvents, budget: float) -> None:
    """Let the page take the input in: a navigation it started is waited for (bounded)."""
    if events.modal.is_set():
        return
    # CDP input answers once the page handled it, and visible gestures waited for their last
    # event, so a navigation the act started has been asked for by now (frameRequestedNavigation).
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget

    def navigating() -> bool:
        asked = events.requested_at
        return events.main_loading or (asked is not None and loop.time() - asked < REQUEST_GRACE_S)

    while navigating() and not events.modal.is_set() and loop.time() < deadline:
        try:
            await within(events.change.wait(), min(0.25, max(0.0, deadline - loop.time())))
        except asyncio.TimeoutError:
            pass
