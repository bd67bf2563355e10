(async (args) => {
  const KEY = "__KEY__", KEEP = 64, FRAME_WAIT_MS = 100;
  const UNSEEN = "canvas, video, iframe, frame, embed, object";
  const CONTROLS = "button, input, select, textarea, summary, [contenteditable]";
  let s = window[KEY];
  const fresh = !s;
  if (fresh) {
    const setT = window.setTimeout, clearT = window.clearTimeout;
    const raf = window.requestAnimationFrame, cancelRaf = window.cancelAnimationFrame;
    s = { changes: 0, drawn: 0, drawnAt: 0, inputs: [], timers: new Map(), reacting: false, hadRange: false,
          frames: new Set(), wake: new Set(), hover: null, sheets: -1, setT, clearT };
    Object.defineProperty(window, KEY, { value: s, configurable: true });
    const wake = () => { for (const w of [...s.wake]) w(); };
    // After a change, the next frame is watched: once its animation frame ran and the task after
    // it (style, layout, paint and commit are done), s.drawn holds the changes that frame drew
    // and s.drawnAt when it began (its damage cannot come earlier; the compositor may present
    // it before that task runs). So an answer need not wait a frame more when the change's
    // frame was produced before it.
    let watching = false;
    const watchFrame = () => {
      if (watching) return;
      watching = true;
      raf.call(window, () => {
        watching = false;
        const upTo = s.changes, began = performance.now();
        const after = new MessageChannel();
        after.port1.onmessage = () => {
          if (upTo > s.drawn) { s.drawn = upTo; s.drawnAt = began; }
          wake();
        };
        after.port2.postMessage(0);
      });
    };
    const changed = () => { s.changes++; watchFrame(); };
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
  // getAnimations() brings style up to date: a transition the click started is in it already.
  const animating = () => document.getAnimations().some((a) => a.playState === "running");
  // Timers the input's handlers set, due within the horizon: reactions still to come.
  const due = [...s.timers.values()].filter((at) => at <= first.t + args.horizon_ms);
  if (s.changes !== first.changes) {
    // One frame draws it all when nothing else is pending (no animation, timer or frame asked
    // for, nothing the tracker cannot see): the page answers once that frame was produced (its
    // animation frame ran and the task after it), so the damage it presents ends desktopd's wait.
    if (due.length || s.frames.size || animating() || document.querySelector(UNSEEN)) {
      return { evidence: "changed", detail: "the page changed" };
    }
    const upTo = s.changes, until = performance.now() + FRAME_WAIT_MS;
    while (s.drawn < upTo && performance.now() < until) await next(until - performance.now());
    if (s.drawn < upTo) return { evidence: "changed", detail: "the page changed" };
    // Where that frame lands on the screen (the viewport, in screen pixels): damage elsewhere
    // (the browser's own tab strip, another window) is not the page's frame.
    const px = devicePixelRatio || 1;
    const viewport = [screenX + outerWidth - innerWidth, screenY + outerHeight - innerHeight, innerWidth, innerHeight]
      .map((v) => Math.round(v * px));
    return { evidence: "changed", detail: "the page changed", one_frame: true, viewport,
             drawn_s: Math.max(0, s.drawnAt - cutoff - args.margin_ms) / 1000 };
  }
  if (animating()) return { evidence: "changed", detail: "animating" };
  if (document.querySelector(UNSEEN)) return { evidence: "none", detail: "the page draws in a canvas, video or frame" };
  if (due.length) {
    const last = Math.max(...due);
    return { evidence: "changed", detail: "timers pending", due_s: (last - cutoff) / 1000,
             due_in_s: Math.max(0, last - performance.now()) / 1000 };
  }
  return { evidence: "idle", detail: "nothing to draw" };
})
