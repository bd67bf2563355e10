"""The browser's evidence for desktopd's settle (desktopd/settle.py): did the page in front take
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
  start), and desktopd's quiet window runs from then;
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
from typing import Any

from aiohttp import web

from httpapi.appkeys import app_key
from httpapi.bodies import json_body
from httpapi.fields import F, Int, Model, Number

from . import app_keys as keys
from ..cdp.connection import CDPError, CDPTimeout
from ..cdp.targets import PageTarget

log = logging.getLogger(__name__)

KEY = "__desktopdSettle"
CUTOFF_MARGIN_MS = 1.0     # input events this much before the act's start count as its own too
FIRST_SLACK_MS = 50.0      # how far a document's time origin may move its first cutoff earlier (a busy hop)
MAX_AGE_S = 60.0

_SCRIPT = r"""
(async (args) => {
  const KEY = "__KEY__", KEEP = 64;
  const UNSEEN = "canvas, video, iframe, frame, embed, object";
  const CONTROLS = "button, input, select, textarea, summary, [contenteditable]";
  let s = window[KEY];
  const fresh = !s;
  if (fresh) {
    const setT = window.setTimeout, clearT = window.clearTimeout;
    s = { changes: 0, inputs: [], timers: new Map(), reacting: false, hadRange: false,
          frames: new Set(), wake: new Set(), hover: null, sheets: -1, setT, clearT };
    Object.defineProperty(window, KEY, { value: s, configurable: true });
    const changed = () => { s.changes++; };
    const wake = () => { for (const w of [...s.wake]) w(); };
    // Input first (its record holds the count before the event's own effects), then effects.
    const record = (e) => {
      if (!e.isTrusted) return;
      s.inputs.push({ type: e.type, t: performance.now(), changes: s.changes });
      if (s.inputs.length > KEEP) s.inputs.splice(0, s.inputs.length - KEEP);
      // Timers set until the next task are the input's (handlers and their microtasks).
      s.reacting = true;
      setT(() => { s.reacting = false; }, 0);
      wake();
    };
    for (const type of ["mouseover", "mouseout", "mousemove", "mousedown", "mouseup", "keydown", "keyup", "wheel"]) {
      addEventListener(type, record, { capture: true, passive: true });
    }
    new MutationObserver(changed).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of ["focusin", "focusout", "scroll", "input", "change", "toggle", "animationstart",
                        "transitionrun", "load", "error", "resize", "beforeunload", "pagehide"]) {
      addEventListener(type, changed, { capture: true, passive: true });
    }
    const editable = (el) => !!el && (el.isContentEditable || /^(input|textarea)$/i.test(el.localName || ""));
    document.addEventListener("selectionchange", () => {
      const sel = getSelection();
      const range = !!sel && !sel.isCollapsed;
      if (range || s.hadRange || editable(document.activeElement)) changed();
      s.hadRange = range;
    });
    // The elements a :hover rule styles: the compound before its :hover ("nav a:hover span": nav a).
    const hoverTargets = () => {
      if (s.sheets === document.styleSheets.length && s.hover !== null) return s.hover;
      const heads = [CONTROLS];
      const walk = (rules) => {
        for (const rule of rules) {
          if (rule.cssRules) walk(rule.cssRules);
          const text = rule.selectorText;
          if (!text || !text.includes(":hover")) continue;
          for (const part of text.split(",")) {
            const at = part.indexOf(":hover");
            if (at < 0) continue;
            const head = part.slice(0, at);
            heads.push(head.trim() === "" || /[\s>+~(,]$/.test(head) ? head + "*" : head);
          }
        }
      };
      let all = false;
      for (const sheet of document.styleSheets) {
        try { walk(sheet.cssRules); } catch (e) { all = true; /* cross-origin: unreadable */ }
      }
      let joined = all ? "*" : heads.join(",");
      try { document.querySelector(joined); } catch (e) { joined = "*"; }
      s.sheets = document.styleSheets.length;
      s.hover = joined;
      return joined;
    };
    const hovered = (e) => {
      if (!e.isTrusted) return;
      const matters = (el) => !!el && el.nodeType === 1 && !!el.closest(hoverTargets());
      if (matters(e.target) || matters(e.relatedTarget)) changed();
    };
    addEventListener("mouseover", hovered, { capture: true, passive: true });
    addEventListener("mouseout", hovered, { capture: true, passive: true });
    // Timers an input's handlers set (and the timers those set) are reactions still to come.
    window.setTimeout = function (handler, delay, ...rest) {
      if (!s.reacting || typeof handler !== "function") return setT.call(this, handler, delay, ...rest);
      const due = performance.now() + Math.max(0, Number(delay) || 0);
      const id = setT.call(this, function (...a) {
        s.timers.delete(id);
        const outer = s.reacting;
        s.reacting = true;
        try { return handler.apply(this, a); } finally { s.reacting = outer; setT(wake, 0); }
      }, delay, ...rest);
      s.timers.set(id, due);
      return id;
    };
    window.clearTimeout = function (id) { s.timers.delete(id); wake(); return clearT.call(this, id); };
    // Frames they asked for, too: work deferred to the next frame (a class added in it).
    const raf = window.requestAnimationFrame, cancelRaf = window.cancelAnimationFrame;
    window.requestAnimationFrame = function (callback) {
      if (!s.reacting || typeof callback !== "function") return raf.call(this, callback);
      const id = raf.call(this, function (...a) {
        s.frames.delete(id);
        const outer = s.reacting;
        s.reacting = true;
        try { return callback.apply(this, a); } finally { s.reacting = outer; }
      });
      s.frames.add(id);
      return id;
    };
    window.cancelAnimationFrame = function (id) { s.frames.delete(id); return cancelRaf.call(this, id); };
  }
  if (!args) return null;      // installing only (a new document)
  if (document.visibilityState !== "visible") return { evidence: "none", detail: "hidden" };
  if (fresh) return { evidence: "none", detail: "tracker installed now" };
  // performance.now() and the sender's CLOCK_MONOTONIC differ by a constant (both run on it):
  // at most now minus when the request was sent, so the least such difference seen is the
  // closest (the quickest hop in). A document's first request starts from its time origin
  // (wall clock) instead, trusted to within FIRST_SLACK_MS of that bound.
  const now = performance.now(), upper = now - args.sent_ms;
  if (s.offset === undefined) {
    s.offset = Math.min(upper, Math.max(args.wall_minus_mono_ms - performance.timeOrigin, upper - args.first_slack_ms));
  }
  s.offset = Math.min(s.offset, upper);
  const cutoff = args.started_ms + s.offset - args.margin_ms, deadline = now + args.wait_ms;
  const next = (ms) => new Promise((done) => {
    const t = s.setT.call(window, () => { s.wake.delete(done); done(); }, Math.max(0, ms));
    s.wake.add(() => { s.clearT.call(window, t); s.wake.delete(done); done(); });
  });
  // One task later: the handlers' microtasks and the tasks they queued at once have run.
  const task = () => new Promise((done) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => done();
    c.port2.postMessage(0);
  });
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  // The act's clicks, as mouseups after the act began.
  let mine = [];
  for (;;) {
    mine = s.inputs.filter((i) => i.t >= cutoff);
    if (mine.filter((i) => i.type === "mouseup").length >= args.clicks) break;
    if (performance.now() >= deadline) {
      const ups = s.inputs.filter((i) => i.type === "mouseup");
      const lastUp = ups.length ? ups[ups.length - 1].t - cutoff : null;
      return { evidence: "none", detail: `the clicks did not reach the page in time (the last mouseup ${lastUp === null ? "never" : Math.round(lastUp) + " ms after the act"})` };
    }
    await next(deadline - performance.now());
  }
  const first = mine[0];
  await task();
  // Frames the handlers asked for run first (and what they ask for in turn, within the horizon).
  while (s.frames.size && performance.now() < first.t + args.horizon_ms) {
    await frame();
    await task();
  }
  if (s.changes !== first.changes) return { evidence: "changed", detail: "the page changed" };
  // getAnimations() brings style up to date: a transition the click started is in it already.
  if (document.getAnimations().some((a) => a.playState === "running")) return { evidence: "changed", detail: "animating" };
  if (document.querySelector(UNSEEN)) return { evidence: "none", detail: "the page draws in a canvas, video or frame" };
  // Timers the input's handlers set, due within the horizon: reactions still to come.
  const due = [...s.timers.values()].filter((at) => at <= first.t + args.horizon_ms);
  if (due.length) {
    const last = Math.max(...due);
    return { evidence: "changed", detail: "timers pending", due_s: (last - cutoff) / 1000,
             due_in_s: Math.max(0, last - performance.now()) / 1000 };
  }
  return { evidence: "idle", detail: "nothing to draw" };
})
""".replace("__KEY__", KEY)
INSTALL = f"({_SCRIPT})(null)"

SETTLE_BODY = Model("SettleEvidence", [
    F("started", Number(0, 1e12), required=True,
      description="When the act began, in seconds of this host's CLOCK_MONOTONIC (Python's "
                  "time.monotonic()): input events the page received since then are the act's."),
    F("clicks", Int(1, 3), default=1, description="Mouseups the act's clicks give the page."),
    F("wait_s", Number(0, 10), required=True,
      description="Seconds from now to wait for the clicks to reach the page."),
    F("horizon_s", Number(0, 10), default=0.5,
      description="Timers the input's handlers set that are due within this long after the input "
                  "are reactions still to come (answered as changed, with due_s)."),
])

SETTLE_RESULT = {"application/json": {"schema": {
    "type": "object", "required": ["evidence"],
    "properties": {"evidence": {"enum": ["idle", "changed", "none"]},
                   "due_s": {"type": "number", "description": "With changed: the last pending reaction "
                                                           "timer, seconds after the act's start."},
                   "due_in_s": {"type": "number", "description": "The same, seconds from the answer."},
                   "detail": {"type": "string"}, "tab": {"type": ["string", "null"]}}}}}


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


async def _ask(page: PageTarget, body: dict[str, Any], budget: float) -> dict[str, Any]:
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
    return value


async def settle_evidence(request: web.Request) -> web.Response:
    body = await json_body(request, SETTLE_BODY)
    tracker = request.app[keys.SUPERVISOR].current().tracker
    pages = tracker.pages()
    # Every tab asks its page; a hidden one answers at once. The visible tab's answer counts.
    budget = body["wait_s"] + body["horizon_s"] + 1.0
    trackers = request.app[TRACKERS]
    await trackers.ensure(pages, budget)
    answers = await asyncio.gather(*(_ask(p, body, budget) for p in pages))
    for page, answer in zip(pages, answers):
        if answer.get("detail") != "hidden":
            return web.json_response({**answer, "tab": page.target_id})
    return web.json_response({"evidence": "none", "detail": "no visible tab", "tab": None})
