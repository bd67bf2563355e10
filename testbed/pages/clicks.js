// Records every click of the page as the id of the button hit (through shadow roots) or
// "miss:<target>", and the clicks its frames forward by postMessage ({click: id}), in
// window.__clicks; the title shows the last one, so HTTP-only tests can read it from /tabs.
window.__clicks = [];
const record = (id) => { window.__clicks.push(id); document.title = "clicked " + id; };
document.addEventListener("click", (e) => {
  const b = e.composedPath()[0].closest("button");
  record(b ? b.id : "miss:" + (e.target.id || e.target.tagName));
}, true);
addEventListener("message", (e) => {
  if (e.data && typeof e.data.click === "string") record(e.data.click);
});
