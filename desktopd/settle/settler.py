"""Settling after an act: wait until the screen has stopped changing, on evidence.

The evidence is the screen's damage as the backend's change source reports it (desktopd/settle/changes.py:
the X server's DAMAGE for the root window, desktopd/x11/damage.py; on Sway the compositor's
screencopy damage, desktopd/sway/damage.py; backend.change_source_opener picks it): the screen is
settled once no change has been reported for a quiet window after the act (and after
every change since), and the wait ends anyway at a maximum while it still changes (an animation).
Every vendor endpoint and POST /api/v1/step settle through ``Settler.settle``; the answer says
how long it waited and why it stopped.

After a left click the browser may have its say too (desktopd/settle/browser.py, the sidecar's
POST /settle): its page ends a still screen's wait at once, or tells of reaction timers to
wait for. A capture of a screen that reported no change since is given again (CaptureCache).

The whole screen is watched, not the window acted on: a click's reaction may be a menu, a dialog
or a new window anywhere. Slow periodic sources (the panel clock, a caret's blink) can extend one
wait by a quiet window, never to the maximum; Xvfb's pointer is not drawn into the framebuffer
and reports no damage (a headless Sway's cursor is, and a move it shows is a change).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict, TypeVar, cast

from httpapi.fields import F, Bool, Enum, Int, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from desktopd.settle.browser import BrowserEvidence, Clicks, Verdict
from desktopd.settle.changes import Change, ChangeLog, ChangeSource, Rect, SourceOpener

log = logging.getLogger(__name__)
T = TypeVar("T")

# Defaults, chosen by measurement (docs/design/settle-on-evidence.md): the quiet window covers the
# time Chromium takes to present its first frame after an input on a busy 2-core host; the
# maximum bounds a step on a page that never stops moving.
DEFAULT_MAX_S = 0.5
DEFAULT_QUIET_S = 0.03
MAX_SETTLE_S = 10.0
# After the browser said its page changed: how long its drawing is awaited (a change may draw
# nothing), and how often the change log is looked at meanwhile.
DRAW_BUDGET_S = 0.1
DRAW_POLL_S = 0.004
# After the page said its change is all drawn in one frame it had produced when it answered: the
# window that frame's damage must be followed by (its rectangles come in one burst; the page's
# next frame would come a refresh, 16.7 ms, later), instead of settle_quiet.
FRAME_QUIET_S = 0.008

SETTLE_FIELD = F("settle", Number(0, MAX_SETTLE_S), default=DEFAULT_MAX_S,
                 description="Seconds at most to wait after an action for the screen to stop "
                             "changing (screen damage quiet for settle_quiet); 0: do not wait.")
QUIET_FIELD = F("settle_quiet", Number(0.001, MAX_SETTLE_S), default=DEFAULT_QUIET_S,
                description="Seconds without a screen change that count as settled; a reaction "
                            "drawn later than this after the act or the last change is not waited for. "
                            "After a left click whose change the page drew in one frame, that frame's "
                            "damage ends the wait sooner (settled.window_s).")
BROWSER_FIELD = F("settle_browser", Bool(), default=True,
                  description="After a left click, also ask the browser (the sidecar) whether its page "
                              "took the click in and has nothing left to draw: a still page then ends "
                              "the wait before the quiet window, and timers the page's handlers set "
                              "within settle are waited for. false: screen damage alone.")
SETTLE_FIELDS = [SETTLE_FIELD, QUIET_FIELD, BROWSER_FIELD]

SETTLED = ResponseModel("Settled", [
    F("reason", Enum(["quiet", "max", "skipped", "unobserved"], typed=False),
      description="quiet: no change for settle_quiet; max: the maximum came first (still changing: "
                  "an animation; or settle < settle_quiet); skipped: nothing to wait for (settle=0 "
                  "or an action that only looks); unobserved: no damage evidence (see detail), "
                  "waited settle_quiet."),
    F("waited_s", Number(), description="Seconds from the action's end until the wait ended."),
    F("changes", Int(), description="Screen changes reported meanwhile."),
    F("last_change_s", Nullable(Number()), description="When the last one came, after the action."),
    F("settle", Number()), F("settle_quiet", Number()),
    F("evidence", Enum(["damage", "browser"], typed=False),
      description="What ended a quiet wait: no damage for settle_quiet (window_s when shorter), or "
                  "the browser's word that its page took the click in and had nothing to draw."),
    F("window_s", Number(),
      description="The quiet window that ended the wait when it was not settle_quiet: the page said "
                  "its change is drawn in one frame (browser.one_frame) it had already produced, so "
                  "the damage of that frame followed by this short window ends it."),
    F("browser", Opaque("object"),
      description="The browser's verdict, when it was asked: evidence idle|changed|none, its "
                  "detail, answered_s (when it came after the act; null: it had not yet), due_s, "
                  "one_frame and drawn_s when given."),
    F("detail", Str()),
], description="How the wait after the action ended.")

@dataclass(frozen=True)
class SettleSpec:
    maximum: float      # seconds; 0: do not wait
    quiet: float        # seconds
    browser: bool = True

    @classmethod
    def of(cls, q: Mapping[str, object]) -> SettleSpec:
        """From a query or body validated with SETTLE_FIELDS."""
        settle, quiet = q["settle"], q["settle_quiet"]
        if not isinstance(settle, (int, float)) or not isinstance(quiet, (int, float)):
            raise TypeError("settle and settle_quiet are numbers once SETTLE_FIELDS validated them")
        return cls(settle, quiet, bool(q.get("settle_browser", True)))


@dataclass(frozen=True)
class Mark:
    """The instant an act ended, as a change log saw it."""

    log: ChangeLog
    seq: int
    at: float

    @classmethod
    def now(cls, log: ChangeLog) -> Mark:
        return cls(log, log.seq, log.clock())

    def changed(self) -> bool:
        """Whether a change came after the mark (True once the log can no longer tell)."""
        return self.log.closed_reason is not None or self.log.seq != self.seq


class BrowserVerdictJson(TypedDict):
    evidence: str
    detail: str
    answered_s: float | None
    due_s: NotRequired[float]
    one_frame: NotRequired[bool]
    drawn_s: NotRequired[float]


class SettledJson(TypedDict):
    """An answer's ``settled`` (SETTLED)."""
    reason: str
    waited_s: float
    changes: int
    last_change_s: float | None
    settle: float
    settle_quiet: float
    evidence: NotRequired[str]
    window_s: NotRequired[float]
    browser: NotRequired[BrowserVerdictJson]
    detail: NotRequired[str]


class SettlerInfo(TypedDict):
    watching: bool
    last_error: str | None


@dataclass(frozen=True)
class Settled:
    reason: str
    waited_s: float
    changes: int
    last_change_s: float | None
    spec: SettleSpec
    detail: str | None = None
    evidence: str = "damage"
    browser: Verdict | None = None
    browser_s: float | None = None     # when the verdict came, after the act
    window_s: float | None = None      # the quiet window that ended it, when not settle_quiet

    def json(self) -> SettledJson:
        out: SettledJson = {"reason": self.reason, "waited_s": round(self.waited_s, 4),
                            "changes": self.changes,
                            "last_change_s": None if self.last_change_s is None else round(self.last_change_s, 4),
                            "settle": self.spec.maximum, "settle_quiet": self.spec.quiet}
        if self.reason == "quiet":
            out["evidence"] = self.evidence
            if self.window_s is not None and self.window_s != self.spec.quiet:
                out["window_s"] = self.window_s
        if self.browser is not None:
            out["browser"] = {"evidence": self.browser.evidence, "detail": self.browser.detail,
                              "answered_s": None if self.browser_s is None else round(self.browser_s, 4)}
            if self.browser.due_s is not None:
                out["browser"]["due_s"] = round(self.browser.due_s, 4)
            if self.browser.frame_at is not None:
                out["browser"]["one_frame"] = True
            if self.browser.drawn_s is not None:
                out["browser"]["drawn_s"] = round(self.browser.drawn_s, 4)
        if self.detail:
            out["detail"] = self.detail
        return out


def skipped(spec: SettleSpec) -> Settled:
    return Settled("skipped", 0.0, 0, None, spec)


async def wait_quiet(mark: Mark, spec: SettleSpec, browser: asyncio.Future[Verdict] | None = None,
                     clicks_at: float = 0.0, calm: asyncio.Event | None = None) -> Settled:
    """Until no change for ``spec.quiet`` since the act and since the last change, or until
    ``spec.maximum`` after the act. Nothing needs waking on a change: the log is read at the end
    of each window, and a change in it moves the window's end.

    ``browser``, the page's verdict on a click, still to come: while it is, the wait goes on (the
    page answers a task after the clicks reached it); ``idle`` with no change seen ends the wait
    at once; ``changed`` means a frame is due: a change after the act (or after the reaction
    timers the page reported are due) is awaited for DRAW_BUDGET_S at most, and the quiet window
    runs from the verdict, or from when those timers are due, whichever is later. ``changed`` in
    one frame (``frame_at``: the page produced the frame that draws all of it before answering):
    once a change inside its rectangle came, a window of FRAME_QUIET_S after the last change and
    the verdict ends the wait; until then, the quiet window as above.

    ``calm`` is set once the wait has nothing left to hear of but its last window (no verdict
    awaited, no drawing awaited): the screen may be final from then on."""
    changes = mark.log
    deadline = mark.at + spec.maximum
    quiet = spec.quiet
    framed = False          # a change came where the page's one frame lands
    last, count, seen = mark.at, 0, mark.seq
    verdict: Verdict | None = None
    heard: float | None = None
    newest: float | None = None                 # the latest change seen
    drawing: tuple[float, float] | None = None  # a change after [0] is awaited until [1]
    while True:
        for change in changes.after(seen):
            seen = change.seq
            count += 1
            last = max(last, change.at)
            newest = change.at if newest is None else max(newest, change.at)
            framed = framed or (verdict is not None and _lands(change, verdict, clicks_at))
        now = changes.clock()
        if verdict is None and browser is not None and browser.done():
            verdict, heard = browser.result(), now - mark.at
            if verdict.evidence == "idle" and count == 0:
                return Settled("quiet", heard, 0, None, spec, evidence="browser", browser=verdict, browser_s=heard)
            if verdict.evidence == "changed":
                # The page changed (or will, when its timers are due): its drawing is awaited,
                # for DRAW_BUDGET_S at most (a change may draw nothing), then a quiet window.
                # When the timers are due on this clock: from the act's start on the page's
                # clock (may err early by the hop in), or from the answer (errs late by the hop
                # back): the later one, so a change before the timers ran never counts.
                due = (max(clicks_at + verdict.due_s, now + (verdict.due_in_s or 0.0))
                       if verdict.due_s is not None else mark.at)
                last = max(last, now, due)
                drawing = (due, max(now, due) + max(spec.quiet, DRAW_BUDGET_S))
                if verdict.frame_at is not None:
                    # The changes read before the verdict, looked at again for its frame's.
                    framed = any(_lands(c, verdict, clicks_at) for c in changes.after(mark.seq))
        if framed:
            quiet = min(spec.quiet, FRAME_QUIET_S)
        asking = browser is not None and not browser.done()
        awaiting = drawing is not None and (newest is None or newest < drawing[0]) and now < drawing[1]
        if verdict is not None and verdict.frame_at is not None and heard is not None and not framed:
            # The page's frame is produced but its damage not seen yet: a capture now would be
            # taken again; the frame is awaited for a quiet window after the verdict at most.
            awaiting = now < mark.at + heard + spec.quiet
        if calm is not None and not asking and not awaiting:
            calm.set()
        if changes.closed_reason is not None:
            # The reader stopped (before, or while this wait slept): what came after is unknown,
            # so neither quiet nor max can be vouched for; say so.
            return Settled("unobserved", now - mark.at, count, _since(last, mark, count), spec,
                           changes.closed_reason, browser=verdict, browser_s=heard)
        if now >= last + quiet and not asking and not awaiting:
            return Settled("quiet", now - mark.at, count, _since(last, mark, count), spec, browser=verdict,
                           browser_s=heard, window_s=quiet)
        if now >= deadline:
            return Settled("max", now - mark.at, count, _since(last, mark, count), spec, browser=verdict,
                           browser_s=heard)
        pause = (deadline if now >= last + quiet else min(last + quiet, deadline)) - now
        if awaiting:
            pause = min(pause, DRAW_POLL_S)     # a change ends this part of the wait: look often
        if asking and browser is not None:
            await asyncio.wait({browser}, timeout=pause)
        else:
            await asyncio.sleep(pause)


def _lands(change: Change, verdict: Verdict, clicks_at: float) -> bool:
    """Whether ``change`` can be the damage of the one frame the page vouched for: drawn where the
    page lies (inside its viewport, or a redraw covering all of it: the browser presents its tab
    strip's change and the page's frame in one) and, when the page said when it produced that
    frame, read after then (an earlier frame's damage is not it)."""
    if verdict.frame_at is None:
        return False
    if verdict.drawn_s is not None and change.at < clicks_at + verdict.drawn_s:
        return False
    return _inside(change.rect, verdict.frame_at) or _inside(verdict.frame_at, change.rect)


def _inside(rect: Rect, area: Rect, slack: int = 2) -> bool:
    """Whether ``rect`` lies in ``area`` (give or take ``slack`` pixels of rounding). Only
    inside: the browser's own redraws (a tab strip's new title) are reported as rectangles that
    reach into the viewport from above."""
    return (rect[0] >= area[0] - slack and rect[1] >= area[1] - slack
            and rect[0] + rect[2] <= area[0] + area[2] + slack and rect[1] + rect[3] <= area[1] + area[3] + slack)


def _since(last: float, mark: Mark, count: int) -> float | None:
    return last - mark.at if count else None


async def settled_capture(settler: Settler, mark: Mark | None, spec: SettleSpec,
                          capture: Callable[[], Awaitable[T]], clicks: Clicks | None = None) -> tuple[T, Settled]:
    """The capture the settled screen gives, and how the settle ended. The capture is taken
    while the settle waits, from when the wait has only its last window left (at once on damage
    alone; after the browser's verdict and the drawing it announced otherwise): it is taken
    again only when the screen changed after it began. So a screen that is still, or whose change
    was drawn, costs the window or the capture, whichever is longer, not both; and a capture is
    not taken before a change the page announced was drawn (CPU taken from the drawing)."""
    if spec.maximum <= 0:
        return await capture(), skipped(spec)
    calm = asyncio.Event()
    waiting = asyncio.ensure_future(settler.settle(mark, spec, clicks, calm))
    calmed = asyncio.ensure_future(calm.wait())
    try:
        await asyncio.wait({waiting, calmed}, return_when=asyncio.FIRST_COMPLETED)
        if waiting.done():
            return await capture(), waiting.result()
        before = await settler.mark()
        early = await capture()
    except BaseException:
        waiting.cancel()
        raise
    finally:
        calmed.cancel()
    settled = await waiting
    if before is None or settled.reason == "unobserved" or before.changed():
        return await capture(), settled
    return early, settled


class CaptureCache:
    """The last capture of each kind, given again while the screen reported no change since
    it began: a still screen is not captured and encoded again at every step. Only the change
    log the capture was marked on can vouch for it (a new watcher starts a new log)."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._entries: collections.OrderedDict[Hashable, tuple[ChangeLog, int, object]] = collections.OrderedDict()

    def wrap(self, log_: Callable[[], ChangeLog | None], key: Hashable,
             capture: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[T]]:
        async def cached() -> T:
            changes = log_()
            if changes is None or changes.closed_reason is not None:
                return await capture()
            entry = self._entries.get(key)
            if entry is not None and entry[0] is changes and entry[1] == changes.seq:
                self._entries.move_to_end(key)
                return cast(T, entry[2])
            seq = changes.seq           # before the capture: a change during it is not vouched for
            result = await capture()
            self._entries[key] = (changes, seq, result)
            self._entries.move_to_end(key)
            while len(self._entries) > self._keep:
                self._entries.popitem(last=False)
            return result
        return cached


class Settler:
    """desktopd's one change source (a damage watcher), (re)opened on demand: a display that went away and came
    back is watched again at the next act."""

    def __init__(self, display: str, opener: SourceOpener,
                 browser: BrowserEvidence | None = None) -> None:
        self.display = display
        self._open = opener
        self.browser = browser      # the sidecar's evidence, when it runs on this host
        self._watcher: ChangeSource | None = None
        self.last_error: str | None = None
        self._opening = threading.Lock()   # two acts at once open one watcher, not two
        self._captures = CaptureCache()

    def _live(self) -> ChangeSource | None:
        with self._opening:
            return self._reopen()

    def _reopen(self) -> ChangeSource | None:
        if self._watcher is not None and not self._watcher.alive:
            self._watcher.close()
            self._watcher = None
        if self._watcher is None:
            try:
                self._watcher = self._open(self.display)
                self.last_error = None
            except Exception as exc:   # reported in every answer that needed it, and in /health
                if str(exc) != self.last_error:
                    log.warning("no damage watcher on %s: %s", self.display, exc)
                self.last_error = str(exc)
        return self._watcher

    async def start(self) -> None:
        await asyncio.to_thread(self._live)

    async def mark(self) -> Mark | None:
        """Call when an act has ended (its input synced with the server)."""
        watcher = self._watcher
        if watcher is None or not watcher.alive:
            watcher = await asyncio.to_thread(self._live)
        if watcher is None:
            return None
        return Mark.now(watcher.log)

    async def settle(self, mark: Mark | None, spec: SettleSpec, clicks: Clicks | None = None,
                     calm: asyncio.Event | None = None) -> Settled:
        """How the wait after an act ended; ``calm``: set when only its last window is left."""
        if spec.maximum <= 0:
            return skipped(spec)
        if mark is None:
            # No evidence possible: the quiet window as a plain pause, and the answer says so.
            wait = min(spec.quiet, spec.maximum)
            await asyncio.sleep(wait)
            return Settled("unobserved", wait, 0, None, spec, self.last_error or "no damage watcher")
        if self.browser is None or clicks is None or not spec.browser:
            return await wait_quiet(mark, spec, calm=calm)
        # The page waits for the clicks as long as the quiet window would, and for the timers
        # its handlers set until the maximum.
        elapsed = mark.log.clock() - clicks.started
        asking = asyncio.ensure_future(self.browser.ask(clicks, spec.quiet - elapsed, spec.maximum - elapsed))
        try:
            return await wait_quiet(mark, spec, asking, clicks.started, calm)
        finally:
            asking.cancel()

    def reusing(self, key: Hashable, capture: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[T]]:
        """``capture``, answered from its last result while the screen has not changed since."""
        return self._captures.wrap(self._log, key, capture)

    def _log(self) -> ChangeLog | None:
        watcher = self._watcher
        return watcher.log if watcher is not None and watcher.alive else None

    def info(self) -> SettlerInfo:
        return {"watching": self._watcher is not None and self._watcher.alive, "last_error": self.last_error}

    async def close(self) -> None:
        if self.browser is not None:
            await self.browser.close()
        if self._watcher is not None:
            await asyncio.to_thread(self._watcher.close)
            self._watcher = None
