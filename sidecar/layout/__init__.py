"""The sidecar's layout builder: accessibility nodes with document, viewport and screen bounds.

``await build_layout(conn, tracker, LayoutOptions.from_query(request.query))`` is the /layout
body; its schema, with every field's coordinate space, is ``layout_schema.jsonc`` at the root.

Modules: ``options`` (query parsing, 422s), ``probe`` (one in-page call per request: window
metrics and the change signal), ``snapshot`` (DOMSnapshot boxes by backendNodeId, frames placed),
``axtree`` (AX nodes as records, interesting/roles filters), ``dom_fallback`` (records from the
DOM when the AX tree is unavailable), ``geometry`` (the three spaces and the screen origin),
``builder`` (orchestration, per-tab cache, error mapping), ``patch`` (re-read only the subtrees
a change touched), ``restyle`` (what CSS re-rendered beyond them, from two DOM snapshots),
``splice`` (re-read subtrees put into the cached pre-order), ``sections`` (a full read in
pipelined pieces), ``render`` (each node's bounds and JSON for one view), ``memory`` (garbage
freed after the answer), ``encoding`` (a layout's nodes as their JSON, encoded bodies reused
while unchanged, ETag, gzip), ``refresh`` (eager background refresh on in-page change
notifications).
"""

from .builder import build_layout
from .options import LayoutOptions

__all__ = ["LayoutOptions", "build_layout"]
