(el) => {
  try { return !!(el && el.localName === "select" && el.matches(":open")); } catch (e) { return false; /* old engine */ }
}