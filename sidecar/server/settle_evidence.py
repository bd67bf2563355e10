"""The browser's evidence for desktopd's settle (desktopd/settle/settler.py): did the page in front take
an act's clicks in, and is there anything left for it to draw?

desktopd settles on X damage: the screen is still once nothing was drawn for a quiet window. A
still page still costs that window. The page itself can tell sooner: a tracker in it (installed
on the first request, kept by the document) records every trusted input event and what may
change the picture without a new frame being certain to follow quickly: DOM mutations, focus,
a text selection that shows, scrolling, a :hover rule reaching the element entered or left,
transitions and animations, loads, a navigation starting. It also records the timers and the
animation frames the input's handlers (and those callbacks, in turn) asked for. ``POST /settle`` then waits in the page for the act's
clicks (counted by their mouseup), then one task more (the handlers' microtasks and what they
queued at once; and any animation frame they asked for), and answers:

* ``idle``: the clicks arrived, nothing of the above happened since the act and no timer the
  handlers set is pending: no frame is due;
* ``changed``: something happened, and desktopd keeps waiting for the damage it draws; or timers
  the handlers set are due within the horizon (``due_s``: the last, in seconds after the act's
  start), and desktopd's quiet window runs from then. ``one_frame``: the change is all drawn in
  the page's next frame (nothing else pending: no animation, timer or frame asked for, no canvas,
  video or frame) and the page answered once that frame was produced, so the damage it presents
  (``viewport``: where the page lies on the screen) ends desktopd's wait (a short window, not the
  quiet window);
* ``none``: no evidence (no click arrived within ``wait_s``: it went elsewhere; the tracker
  was only installed now; the tab is hidden; the page holds a canvas, video or frame whose
  drawing the tracker cannot see; a navigation is pending).

Known limits: script that kept its own reference to setTimeout before the tracker installed
bypasses the timer count; network replies are not waited for (their reactions are seen when
drawn within the quiet window, as without this evidence).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Literal, Required, TypedDict, cast

from aiohttp import web

from httpapi.app_keys import app_key
from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, Int, ListOf, Model, Nullable, Number, Str
from httpapi.responses import ResponseModel, TypedResponse

from . import app_keys as keys
from ..cdp.connection import CDPError, CDPTimeout
from ..page_js import load_js
from ..cdp.targets import PageTarget

log = logging.getLogger(__name__)

KEY = "__desktopdSettle"
CUTOFF_MARGIN_MS = 1.0     # input events this much before the act's start count as its own too
FIRST_SLACK_MS = 50.0      # how far a document's time origin may move its first cutoff earlier (a busy hop)
MAX_AGE_S = 60.0

_SCRIPT = load_js(__package__, "settle_tracker.js").replace("__KEY__", KEY)
INSTALL = f"({_SCRIPT})(null)"


class SettleEvidence(TypedDict):
    started: float
    clicks: int
    wait_s: float
    horizon_s: float


SETTLE_BODY = Typed(Model("SettleEvidence", [
    F("started", Number(0, 1e12), required=True,
      description="When the act began, in seconds of this host's CLOCK_MONOTONIC (Python's "
                  "time.monotonic()): input events the page received since then are the act's."),
    F("clicks", Int(1, 3), default=1, description="Mouseups the act's clicks give the page."),
    F("wait_s", Number(0, 10), required=True,
      description="Seconds from now to wait for the clicks to reach the page."),
    F("horizon_s", Number(0, 10), default=0.5,
      description="Timers the input's handlers set that are due within this long after the input "
                  "are reactions still to come (answered as changed, with due_s)."),
]), SettleEvidence)



class SettleAnswer(TypedDict, total=False):
    evidence: Required[Literal["idle", "changed", "none"]]
    due_s: float
    due_in_s: float
    one_frame: bool
    viewport: list[int]
    drawn_s: float
    detail: str
    tab: str | None


SETTLE_RESULT = TypedResponse(ResponseModel("SettleAnswer", [
    F("evidence", Enum(["idle", "changed", "none"], typed=False), required=True),
    F("due_s", Number(), description="With changed: the last pending reaction timer, seconds "
      "after the act's start."),
    F("due_in_s", Number(), description="The same, seconds from the answer."),
    F("one_frame", Bool(), description="With changed: the change is drawn in one frame, already "
      "produced when this answer was sent; nothing else is pending."),
    F("viewport", ListOf(Int(), min_items=4, max_items=4), description="With one_frame: the "
      "page's viewport on the screen, x, y, width, height in screen pixels (where that frame lands)."),
    F("drawn_s", Number(), description="With one_frame: when the page had produced that frame, "
      "seconds after the act's start (its damage comes after)."),
    F("detail", Str()), F("tab", Nullable(Str())),
]), SettleAnswer)


class Trackers:
    """The tabs whose every new document gets the tracker first (before the page's scripts, so
    that their timers are seen); a tab's current document gets it at its first request."""

    def __init__(self) -> None:
        self._early: set[str] = set()       # their CDP session ids

    async def ensure(self, pages: list[PageTarget], budget: float) -> None:
        self._early &= {page.session_id for page in pages}     # closed tabs are forgotten
        await asyncio.gather(*(self._add(page, budget) for page in pages if page.session_id not in self._early))

    async def _add(self, page: PageTarget, budget: float) -> None:
        self._early.add(page.session_id)
        try:
            await page.send("Page.addScriptToEvaluateOnNewDocument", {"source": INSTALL}, timeout=budget)
        except (CDPError, CDPTimeout, asyncio.TimeoutError) as exc:
            self._early.discard(page.session_id)       # tried again at the next request
            log.debug("the settle tracker is not added to new documents of %s: %s", page.target_id, exc)


TRACKERS = app_key("sidecar.settle_trackers", Trackers)


async def _ask(page: PageTarget, body: SettleEvidence, budget: float) -> SettleAnswer:
    if page.crashed or page.pending_navigation is not None:
        return {"evidence": "none", "detail": "a navigation is pending"}
    sent = time.monotonic()
    if not 0 <= sent - body["started"] <= MAX_AGE_S:
        return {"evidence": "none", "detail": "the act's start is not on this host's clock"}
    args = {"started_ms": body["started"] * 1000, "sent_ms": sent * 1000, "margin_ms": CUTOFF_MARGIN_MS,
            "wall_minus_mono_ms": (time.time() - time.monotonic()) * 1000, "first_slack_ms": FIRST_SLACK_MS,
            "clicks": body["clicks"], "wait_ms": body["wait_s"] * 1000, "horizon_ms": body["horizon_s"] * 1000}
    try:
        reply = await page.send("Runtime.evaluate", {
            "expression": f"({_SCRIPT})({json.dumps(args)})", "awaitPromise": True,
            "returnByValue": True, "silent": True}, timeout=budget)
    except (CDPError, CDPTimeout, asyncio.TimeoutError) as exc:
        return {"evidence": "none", "detail": f"{type(exc).__name__}: {exc}"}
    value = reply.get("result", {}).get("value")
    if not isinstance(value, dict) or value.get("evidence") not in ("idle", "changed", "none"):
        return {"evidence": "none", "detail": "the page gave no answer"}
    if page.pending_navigation is not None:
        return {"evidence": "none", "detail": "a navigation is pending"}
    return cast(SettleAnswer, value)      # the script's answer, its evidence checked above


async def settle_evidence(request: web.Request, body: SettleEvidence) -> web.Response:
    tracker = request.app[keys.SUPERVISOR].current().tracker
    pages = tracker.pages()
    # Every tab asks its page; a hidden one answers at once. The visible tab's answer counts.
    budget = body["wait_s"] + body["horizon_s"] + 1.0
    trackers = request.app[TRACKERS]
    await trackers.ensure(pages, budget)
    answers = await asyncio.gather(*(_ask(p, body, budget) for p in pages))
    for page, answer in zip(pages, answers):
        if answer.get("detail") != "hidden":
            return SETTLE_RESULT.response({**answer, "tab": page.target_id})
    return SETTLE_RESULT.response({"evidence": "none", "detail": "no visible tab", "tab": None})
