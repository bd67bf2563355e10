
(() => {
  const KEY = "__KEY__", LIMIT_MS = __LIMIT__, MAX_WAITERS = 64;
  const waits = [];
  const walk = (w) => {
    try {
      const state = w[KEY];
      if (state && state.settling && state.waiters.length < MAX_WAITERS) {
        waits.push(new Promise((done) => { state.waiters.push(done); w.setTimeout(done, LIMIT_MS); }));
      }
    } catch (e) { /* cross-origin: its own session waits for it */ }
    for (let i = 0; i < w.frames.length; i++) walk(w.frames[i]);
  };
  walk(window);
  return Promise.all(waits).then(() => waits.length);
})()
