function (parts, dpr) {
  if (devicePixelRatio !== dpr) return null;
  for (let e = this; e; e = e.parentElement || (e.getRootNode() || {}).host) {
    const cs = getComputedStyle(e);
    if (cs.scale !== "none" || cs.rotate !== "none" || (cs.zoom && cs.zoom !== "1")) return null;
    if (cs.transform !== "none") {
      const m = new DOMMatrixReadOnly(cs.transform);
      if (!m.is2D || m.a !== 1 || m.b !== 0 || m.c !== 0 || m.d !== 1) return null;
    }
  }
  const place = () => {
    const box = this.getBoundingClientRect(), cs = getComputedStyle(this);
    const ox = box.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
    const oy = box.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
    const vv = window.visualViewport;
    const left = vv ? vv.offsetLeft : 0, top = vv ? vv.offsetTop : 0;
    const right = left + (vv ? vv.width : innerWidth), bottom = top + (vv ? vv.height : innerHeight);
    let best = null;
    for (const [l0, t0, r0, b0] of parts) {
      const l = Math.max(ox + l0, left), t = Math.max(oy + t0, top);
      const rr = Math.min(ox + r0, right), b = Math.min(oy + b0, bottom);
      if (rr - l < 1 || b - t < 1) continue;
      const area = (rr - l) * (b - t);
      if (!best || area > best.area) best = {x: (l + rr) / 2, y: (t + b) / 2, area};
    }
    if (!best) return null;
    const root = this.getRootNode();
    if ((root && root.elementFromPoint ? root : document).elementFromPoint(best.x, best.y) !== this) return null;
    return {x: best.x - left, y: best.y - top, local: {x: best.x - ox, y: best.y - oy}};
  };
  let point = place();
  if (!point) {
    %s;
    point = place();
  }
  if (!point) return null;
  point.window = %s;
  return point;
}