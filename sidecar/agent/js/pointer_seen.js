function (ms) {
  const element = this;
  const win = element.ownerDocument.defaultView;
  return new Promise(done => {
    const seen = event => done({x: event.clientX, y: event.clientY,
                                inside: event.composedPath().includes(element)});
    win.addEventListener("pointermove", seen, {once: true, capture: true});
    setTimeout(() => {
      win.removeEventListener("pointermove", seen, {capture: true});
      done(null);
    }, ms);
  });
}
