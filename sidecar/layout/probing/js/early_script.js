
(() => {
  const KEY = "__SHADOW_KEY__";
  const E = window.Element && window.Element.prototype;
  if (Object.prototype.hasOwnProperty.call(window, KEY) || !E || typeof E.attachShadow !== "function") return;
  const roots = [];
  Object.defineProperty(window, KEY, { value: roots, configurable: true });
  const attach = E.attachShadow;
  E.attachShadow = function (...args) {
    const root = attach.apply(this, args);
    if (!roots.done) roots.push(new WeakRef(root));
    return root;
  };
})()
