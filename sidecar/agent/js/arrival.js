function (type, ms) {
  const win = this.ownerDocument ? this.ownerDocument.defaultView : window;
  return new Promise(r => {
    win.addEventListener(type, () => r(true), {once: true, capture: true});
    setTimeout(() => r(false), ms);
  });
}