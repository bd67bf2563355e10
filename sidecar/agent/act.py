"""POST /act: one act on an element named by its ref, in visible mode (desktopd's XTEST input at
the element's screen box, re-read after scrolling it into view) or cdp mode (CDP input at its
viewport box), answering with what happened: the element, the point, a navigation, a dialog.
The kinds are declared in kinds/ (act_kind.py); this module runs one, raced against a modal
state it may open, and lets the page take it in."""

from __future__ import annotations

import asyncio

from httpapi.bounded import within
from httpapi.errors import ApiError

from .act_kind import ActAnswer, ActBody, ActKind, Target
from .events import TabEvents
from .gestures import ActContext, aim, ensure_front
from .kinds import KINDS
from .resolve import resolve

DEFAULT_WAIT_S = 10.0          # for a navigation an act started
# A navigation asked for but not started within this long was cancelled or became a download.
REQUEST_GRACE_S = 1.0


async def _act(ctx: ActContext, kind: ActKind, body: ActBody) -> ActAnswer:
    element = None
    if kind.ref == "required" or (kind.ref == "optional" and body.get("ref")):
        element = await resolve(ctx.agent, ctx.page, body["ref"], ctx.timeout)
    out: ActAnswer = {}
    point = None
    if kind.aims and element is not None:
        if ctx.mode == "visible":
            await ensure_front(ctx)
        out["element"], out["point"], point = await aim(ctx, element, presses=kind.presses)
    out.update(await kind.run(ctx, Target(element, point), body))
    return out


def hung_after(ctx: ActContext, body: ActBody) -> float:
    """Seconds after which an act counts as hung (504): three CDP call budgets, or for a wait act
    its own pause and condition budget plus one call budget, so that a wait the caller allowed
    60 s answers its own 408 (wait_timeout) rather than being cut off first."""
    limit = ctx.timeout * 3
    own_time = KINDS[body["kind"]].own_time
    if own_time is not None:
        limit = max(limit, own_time(body) + ctx.timeout)
    return limit


async def run_act(ctx: ActContext, body: ActBody) -> ActAnswer:
    """The act, raced against a modal state it may open (an alert() in a click handler blocks
    CDP input until answered): the answer reports the dialog instead of hanging."""
    events = ctx.agent.events(ctx.page.target_id)
    modal = events.modal_state()
    if modal is not None:
        raise ApiError(409, "modal_state", {"modal_state": modal,
                                            "message": "the page waits for an answer first"})
    kind = KINDS[body["kind"]]
    if ctx.mode == "visible" and kind.visible_input:
        ctx.visible_desktopd()    # a sidecar without desktopd says so before anything moves
    navigations, url = events.navigations, ctx.page.url
    dialogs_before = len(events.dialogs)
    choosers_before = len(events.choosers)
    act = ctx.agent.spawn(_act(ctx, kind, body))
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
    if kind.settles:
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
    # The gesture returned once the page's handlers ran and the events they raised arrived, so a
    # navigation the act started has been asked for by now (frameRequestedNavigation).
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget

    def navigating() -> bool:
        # The browser's own word (frameStartedNavigating, until the navigation committed or ended)
        # or the renderer's; a request neither side took up within the grace was dropped.
        asked = events.requested_at
        return (ctx.page.pending_navigation is not None or events.main_loading
                or (asked is not None and loop.time() - asked < REQUEST_GRACE_S))

    while navigating() and not events.modal.is_set() and loop.time() < deadline:
        try:
            await within(events.change.wait(), min(0.25, max(0.0, deadline - loop.time())))
        except asyncio.TimeoutError:
            pass
