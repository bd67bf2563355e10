
(() => {
  const KEY = "__KEY__", BINDING = "__BINDING__", NOTIFY_DELAY_MS = __DELAY__;
  const SHADOW_KEY = "__SHADOW_KEY__";
  const MAX_DIRTY = __MAX_DIRTY__;
  // The form controls Chromium's own later work styles when skipped (styleSkipped below).
  const CONTROLS = "input, textarea, select";
  const MEDIA_EVENTS = ["loadstart", "progress", "suspend", "abort", "emptied", "stalled", "loadedmetadata",
                        "loadeddata", "canplay", "canplaythrough", "playing", "waiting", "seeking", "seeked",
                        "ended", "durationchange", "timeupdate", "play", "pause", "ratechange", "volumechange"];
  // What restyles a page without a mutation or an event in time: its size (media queries) and
  // its URL's fragment (:target).
  const viewOf = (w) => w.innerWidth + "x" + w.innerHeight + "x" + w.devicePixelRatio + w.location.hash;
  const install = (w) => {
    const isTop = w === w.top;
    // dirty: node -> the change count when it last changed (what patch.py re-reads); below
    // ``floor`` the record is incomplete (overflow); ``wide``: the count at the last change
    // without a node of its own (resize, fonts), which may have restyled anything.
    // settling: a recount (below) is due; waiters: SETTLE_WAIT's, answered at the recount.
    const state = { token: Math.random().toString(36).slice(2), changes: 0, scrolls: 0,
                    dirty: new Map(), floor: 0, wide: 0, view: viewOf(w),
                    settling: false, waiters: [] };
    Object.defineProperty(w, KEY, { value: state, configurable: true });
    // Tell the sidecar (Runtime.addBinding, see refresh.py) shortly after a burst of changes,
    // so it can rebuild the layout before it is asked for.
    let notifying = false;
    const notify = () => {
      if (notifying) return;
      notifying = true;
      w.setTimeout(() => {
        notifying = false;
        const binding = w[BINDING];
        // The frame's signal: the sidecar skips the refresh if its last capture has it already.
        const signal = state.token + ":" + state.changes + ":" + state.scrolls;
        if (typeof binding === "function") { try { binding(signal); } catch (e) { /* page's own */ } }
      }, NOTIFY_DELAY_MS);
    };
    const forgetAll = () => { state.dirty.clear(); state.floor = state.changes; };
    const mark = (node) => {
      if (!node) state.wide = state.changes;
      else if (state.dirty.size >= MAX_DIRTY) forgetAll();
      else state.dirty.set(node, state.changes);
    };
    // Content Chromium skips (content-visibility: hidden, or auto off-screen: a closed
    // <details>' content slot, hidden=until-found) has no style until something asks for it,
    // and Chromium asks later, on a timer of its own, not a frame: its form-control discovery
    // styles a text field, textarea or select added there ~100 ms later, and its accessibility
    // tree then changes (a closed <details>' slot: from ignored to generic) with no event in the
    // page. So such a control is styled here first, at the recount below (or at the install),
    // and that later work finds nothing left to change.
    const styleSkipped = (root) => {      // an element or a shadow root
      if (!root.isConnected) return;
      const controls = root.nodeType === 1 && root.matches(CONTROLS) ? [root] : [];
      for (const el of [...controls, ...root.querySelectorAll(CONTROLS)]) {
        if (typeof el.checkVisibility === "function" && !el.checkVisibility({ contentVisibilityAuto: true })) {
          w.getComputedStyle(el).display;
        }
      }
    };
    // Elements added or changed since the last recount; past MAX_DIRTY of them (a hidden tab
    // has no frames, so no recount, for a while) the whole document is styled at it instead.
    const unstyled = new Set();
    let styleAll = false;
    const toStyle = (el) => {
      if (styleAll) return;
      if (unstyled.size < MAX_DIRTY) unstyled.add(el);
      else { unstyled.clear(); styleAll = true; }
    };
    // Chromium updates some of its accessibility tree a frame or two after a change (a
    // <details>' content slot, a textarea's inner editor), with no event of its own: each
    // changed node is counted again two frames later, so a read taken in between is read again.
    const settling = new Set();
    let settleScheduled = false;
    const settle = (node) => {
      settling.add(node);
      if (settleScheduled || typeof w.requestAnimationFrame !== "function") return;
      settleScheduled = true;
      state.settling = true;
      w.requestAnimationFrame(() => w.requestAnimationFrame(() => {
        settleScheduled = false;
        state.settling = false;
        for (const el of styleAll ? [doc.documentElement] : unstyled) if (el) styleSkipped(el);
        unstyled.clear();
        styleAll = false;
        state.changes++;
        for (const n of settling) mark(n);
        settling.clear();
        notify();
        for (const done of state.waiters.splice(0)) done();
      }));
    };
    const bump = (node) => { state.changes++; mark(node); settle(node); notify(); };
    const wide = () => bump(null);       // a change that may have restyled anything
    const doc = w.document;
    const topLevel = (node) => node === doc || node === doc.documentElement || node === doc.body;
    // What changed, for an incremental update: a childList change rewrote its target's
    // children; an attribute or text change can restyle or rename the target's siblings
    // (CSS sibling selectors), so its parent is what may have changed. When that is <body> or
    // <html>, re-reading it would be reading the page: the patch reads the changed nodes
    // themselves (the target, the inserted elements) and checks the rest by its rendering.
    const observer = new w.MutationObserver((records) => {
      state.changes++;
      for (const r of records) {
        // A shadow root's own children changed: its host is the element to read again.
        const target = r.target instanceof w.ShadowRoot ? r.target.host : r.target;
        const node = r.type === "childList" ? target : target.parentNode instanceof w.ShadowRoot
          ? target.parentNode.host : target.parentNode || target;
        mark(node);
        settle(node);
        if (r.type === "attributes") toStyle(target);
        else for (const added of r.addedNodes) if (added.nodeType === 1) toStyle(added);
        if (!topLevel(node)) continue;
        if (r.type !== "childList") { mark(target); settle(target); }
        else for (const added of r.addedNodes) if (added.nodeType === 1) { mark(added); settle(added); }
      }
      notify();
    });
    const watched = { subtree: true, childList: true, attributes: true, characterData: true };
    observer.observe(doc, watched);
    if (doc.documentElement) styleSkipped(doc.documentElement);
    // A document observer does not see inside shadow roots: observe each one too, those open
    // now, closed ones EARLY_SCRIPT kept, and every one attached from now on.
    const watchShadow = (root) => {
      if (!root) return;
      observer.observe(root, watched);
      styleSkipped(root);
      for (const el of root.querySelectorAll("*")) watchShadow(el.shadowRoot);
    };
    for (const el of w.document.querySelectorAll("*")) watchShadow(el.shadowRoot);
    // Closed ones too, that script attached before this install (EARLY_SCRIPT kept them).
    const early = w[SHADOW_KEY];
    if (early) {
      early.done = true;
      for (const ref of early.splice(0)) watchShadow(ref.deref());
    }
    const attach = w.Element && w.Element.prototype.attachShadow;
    if (typeof attach === "function") {
      w.Element.prototype.attachShadow = function (...args) {
        const root = attach.apply(this, args);
        watchShadow(root);
        bump(this);
        return root;
      };
    }
    const onTarget = (e) => bump(e.target instanceof w.Element ? e.target : null);
    const onParent = (e) => bump(e.target instanceof w.Element ? e.target.parentNode : null);
    for (const type of ["input", "change", "focusin", "focusout", "error", "toggle"]) {
      w.addEventListener(type, onTarget, true);
    }
    // A content-visibility: auto element coming near the viewport (or leaving it) is rendered
    // (or skipped) again, at Chromium's own choice: its size and its subtree's accessibility
    // nodes change with no mutation.
    doc.addEventListener("contentvisibilityautostatechange", onTarget, true);
    // A media element's controls are the browser's own shadow content: they follow its state
    // (playing, time, volume, duration), which changes with no mutation the page can see; its
    // events, dispatched at the element, come through the capture phase here.
    for (const type of MEDIA_EVENTS) doc.addEventListener(type, onTarget, true);
    // An image, style sheet or frame that loaded (it may have resized): an element's load event
    // never reaches the window (HTML: a document is the top of a load event's path), so it is
    // watched on the document. The window's own load event renders nothing itself.
    doc.addEventListener("load", onTarget, true);
    // The pointer entering or leaving an element changes what :hover matches (its ancestors'
    // rules too, e.g. a menu shown on hover): what that re-rendered is found from the rendering.
    for (const type of ["mouseover", "mouseout"]) w.addEventListener(type, onTarget, true);
    for (const type of ["transitionrun", "transitionend", "animationstart", "animationend"]) {
      w.addEventListener(type, onParent, true);
    }
    for (const type of ["resize", "fullscreenchange", "hashchange"]) w.addEventListener(type, wide, true);
    w.addEventListener("scroll", (e) => {
      if (!isTop || e.target !== w.document) { state.scrolls++; notify(); }
    }, true);
    if (doc.fonts) doc.fonts.addEventListener("loadingdone", wide);
    // A property setter that also counts (it still does its job): ``counted`` is called with
    // the object as this.
    const countSetter = (kind, name, counted) => {
      const d = kind && Object.getOwnPropertyDescriptor(kind.prototype, name);
      if (d && d.set && d.configurable) {
        Object.defineProperty(kind.prototype, name, { ...d,
          set(v) { counted.call(this); return d.set.call(this, v); } });
      }
    };
    // Setting a control's value or checkedness from script fires no event and no mutation,
    // yet changes the accessibility tree: count those setters too.
    const controlSet = function () {
      bump(this.localName === "option" ? this.closest("select") || this.parentNode : this);
    };
    const setters = [[w.HTMLInputElement, ["value", "checked", "indeterminate"]],
                     [w.HTMLTextAreaElement, ["value"]],
                     [w.HTMLSelectElement, ["value", "selectedIndex"]],
                     [w.HTMLOptionElement, ["selected"]]];
    for (const [kind, names] of setters) {
      for (const name of names) countSetter(kind, name, controlSet);
    }
    // focus()/blur() in a window without the desktop's focus fire no focus events (Chromium
    // defers them), yet move the accessibility tree's focus: count them when they move it.
    const H = w.HTMLElement && w.HTMLElement.prototype;
    for (const name of ["focus", "blur"]) {
      const f = H && H[name];
      if (typeof f !== "function") continue;
      H[name] = function (...args) {
        const before = w.document.activeElement;
        const result = f.apply(this, args);
        const now = w.document.activeElement;
        if (now !== before) {
          state.changes++;
          for (const el of [before, now]) {
            if (el && el !== w.document.body && el !== w.document.documentElement) mark(el);
          }
          notify();
        }
        return result;
      };
    }
    // Scroll events come with the next frame: count script scrolling when it happens.
    const scrolled = () => { state.scrolls++; notify(); };
    const E = w.Element && w.Element.prototype;
    for (const name of ["scrollTop", "scrollLeft"]) countSetter(w.Element, name, scrolled);
    const wrap = (owner, name, counted = scrolled) => {
      const f = owner && owner[name];
      if (typeof f === "function") {
        owner[name] = function (...args) { counted.call(this); return f.apply(this, args); };
      }
    };
    for (const name of ["scroll", "scrollTo", "scrollBy", "scrollIntoView", "scrollIntoViewIfNeeded"]) {
      wrap(E, name);
    }
    // Style sheets changed through the CSSOM (CSS-in-JS libraries insert rules this way) make
    // no mutation, yet can restyle the page: a page-wide change.
    for (const kind of [w.CSSStyleSheet, w.CSSGroupingRule]) {
      for (const name of ["insertRule", "deleteRule", "addRule", "removeRule", "replace", "replaceSync"]) {
        wrap(kind && kind.prototype, name, wide);
      }
    }
    // A rule's declarations edited in place. An element's own style (no parentRule) changes its
    // style attribute: the observer sees that. (A property set by name, rule.style.color = ...,
    // goes through Chromium's named-property interceptor, which script cannot wrap.)
    const ruleEdited = function () { if (this.parentRule) wide(); };
    const accessors = [[w.Document, "adoptedStyleSheets", wide], [w.ShadowRoot, "adoptedStyleSheets", wide],
                       [w.StyleSheet, "disabled", wide], [w.CSSStyleRule, "selectorText", wide],
                       [w.MediaList, "mediaText", wide], [w.CSSStyleDeclaration, "cssText", ruleEdited]];
    for (const [kind, name, counted] of accessors) countSetter(kind, name, counted);
    for (const name of ["appendMedium", "deleteMedium"]) wrap(w.MediaList && w.MediaList.prototype, name, wide);
    for (const name of ["setProperty", "removeProperty"]) {
      wrap(w.CSSStyleDeclaration && w.CSSStyleDeclaration.prototype, name, ruleEdited);
    }
    if (!isTop) for (const name of ["scroll", "scrollTo", "scrollBy"]) wrap(w, name);
  };
  const frames = [];
  let popup = false;          // a <select>'s popup opened or closed since the last probe
  let popupOpen = false;      // a focused <select>'s popup is open now
  let settling = false;       // a frame's recount of its changed nodes is due
  const walk = (w) => {
    let state;
    try {
      if (!(KEY in w)) { install(w); frames.push("?"); }
      else {
        state = w[KEY];
        // A new window size restyles (media queries) before its resize event is dispatched, a
        // new fragment (:target) before its hashchange event.
        const view = viewOf(w);
        if (state.view !== view) { state.changes++; state.wide = state.changes; state.view = view; }
        // A <select>'s popup opened or closed from the keyboard reaches the page as no event
        // (the popup has the keys): its open state is compared at each probe instead.
        const active = w.document.activeElement;
        const open = (__OPEN_SELECT__)(active);
        if (open) popupOpen = true;
        if (state.active !== active || state.open !== open) {
          if (state.active !== undefined && (open || state.open)) {
            // Chromium's tree takes the new state on its next full update (a subtree read
            // right now can still say expanded): a full read, with the record forgotten.
            state.changes++;
            state.dirty.clear();
            state.floor = state.changes;
            popup = true;
          }
          state.active = active; state.open = open;
        }
        if (state.settling) settling = true;
        const running = w.document.getAnimations &&
          w.document.getAnimations().some((a) => a.playState === "running");
        frames.push(running ? "a" : state.token + ":" + state.changes + ":" + state.scrolls);
      }
    } catch (e) {
      frames.push("x");
    }
    for (let i = 0; i < w.frames.length; i++) walk(w.frames[i]);
  };
  walk(window);
  const de = document.documentElement;
  return {
    frames, popup, popupOpen, settling,
    screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight,
    dpr: devicePixelRatio,
    // The tab shown in its window (the one desktop clicks reach); hidden for background tabs.
    visibility: document.visibilityState,
    clientWidth: de ? de.clientWidth : innerWidth,
    clientHeight: de ? de.clientHeight : innerHeight,
  };
})()
