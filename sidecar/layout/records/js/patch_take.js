
(() => {
  const state = window[__KEY__];
  const TOKEN = __TOKEN__, SINCE = __SINCE__, MAX_ROOTS = __MAX_ROOTS__;
  if (!state || state.token !== TOKEN || SINCE < state.floor) return null;
  const changed = [];
  for (const [node, at] of state.dirty) {
    if (at <= SINCE) state.dirty.delete(node);    // already in the capture being patched
    else changed.push(node);
  }
  const doc = document, roots = new Set();
  // aria-owns moves nodes away from their DOM parents: which to read again is not local.
  if (doc.querySelector("[aria-owns]")) return null;
  // A change that can restyle the whole page: none of its own nodes to read (the probe marks
  // the changed nodes below <body> too), the page's rendering is checked instead.
  let wide = state.wide > SINCE;
  for (const found of changed) {
    if (!found.isConnected) continue;   // removed since: its old parent's change covers it
    const node = found.nodeType === 1 ? found : found.parentElement;
    if (!node || node === doc.documentElement || node === doc.body ||
        (doc.head && doc.head.contains(node))) { wide = true; continue; }
    roots.add(node);
    const label = node.closest("label");          // a label names its control
    if (label) { roots.add(label); if (label.control) roots.add(label.control); }
    if (node.localName === "input" && node.type === "radio" && node.name) {
      for (const other of (node.form || doc).querySelectorAll("input[type=radio]")) {
        if (other.name === node.name) roots.add(other);
      }
    }
  }
  // A focused <select> whose popup is open: the keys change its value and the popup's
  // highlighted option in the accessibility tree with no event or mutation, so nothing proves
  // its subtree unchanged: it is read again at every request while open (probe.py's popupOpen
  // keeps the capture from being reused meanwhile).
  if ((__OPEN_SELECT__)(doc.activeElement)) roots.add(doc.activeElement);
  // First the page-wide change's element (its own node and ancestors are read again), or null.
  const top = wide ? doc.body || doc.documentElement : null;
  if (wide && !top) return null;
  if (roots.size === 0) return [top];
  const referrers = doc.querySelectorAll("[aria-labelledby],[aria-describedby]");
  if (referrers.length > __MAX_REFERRERS__) return null;
  const changedRoots = [...roots];
  for (const el of referrers) {
    const ids = ((el.getAttribute("aria-labelledby") || "") + " " +
                 (el.getAttribute("aria-describedby") || "")).split(/\s+/);
    for (const id of ids) {
      const target = id && doc.getElementById(id);
      if (target && changedRoots.some((r) => r.contains(target) || target.contains(r))) {
        roots.add(el);
        break;
      }
    }
  }
  const all = [...roots];
  const minimal = all.filter((r) => !all.some((o) => o !== r && o.contains(r)));
  return minimal.length > MAX_ROOTS ? null : [top, ...minimal];
})()
