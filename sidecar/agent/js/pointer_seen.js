function (ms) {
  // The move the window saw, as its last one a frame after the first: a move the compositor
  // sent before ours (the step beside it, late) may come first, and ours by the next frame.
  const element = this;
  const win = element.ownerDocument.defaultView;
  return new Promise(done => {
    let last = null;
    const stop = value => {
      win.removeEventListener("pointermove", seen, {capture: true});
      done(value);
    };
    const seen = event => {
      const first = last === null;
      last = {x: event.clientX, y: event.clientY, inside: event.composedPath().includes(element)};
      if (first) win.requestAnimationFrame(() => win.requestAnimationFrame(() => stop(last)));
    };
    win.addEventListener("pointermove", seen, {capture: true});
    setTimeout(() => stop(last), ms);
  });
}
