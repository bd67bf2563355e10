function () {
  const measure = () => {
    const vv = window.visualViewport;
    const left = vv ? vv.offsetLeft : 0, top = vv ? vv.offsetTop : 0;
    const right = left + (vv ? vv.width : innerWidth), bottom = top + (vv ? vv.height : innerHeight);
    let best = null;
    const parts = [];
    for (const r of this.getClientRects()) {
      const l = Math.max(r.left, left), t = Math.max(r.top, top);
      const rr = Math.min(r.right, right), b = Math.min(r.bottom, bottom);
      if (rr - l < 1 || b - t < 1) continue;
      parts.push([l - left, t - top, rr - left, b - top]);
      const area = (rr - l) * (b - t);
      if (!best || area > best.area) best = {x: (l + rr) / 2, y: (t + b) / 2, area};
    }
    if (!best) return null;
    const root = this.getRootNode();
    const hit = (root && root.elementFromPoint ? root : document).elementFromPoint(best.x, best.y);
    if (!hit || !(hit === this || this.contains(hit))) return null;
    return {x: best.x - left, y: best.y - top, parts};
  };
  let point = measure(), scrolled = false;
  if (!point) {
    %s;
    point = measure();
    scrolled = true;
  }
  if (!point) return null;
  point.window = %s;
  point.scrolled = scrolled;
  return point;
}