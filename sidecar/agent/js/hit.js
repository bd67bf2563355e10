function (x, y) {
  const root = this.getRootNode();
  const hit = (root && root.elementFromPoint ? root : document).elementFromPoint(x, y);
  return !!hit && (hit === this || this.contains(hit));
}