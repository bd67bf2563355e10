"""The sidecar's layout builder: accessibility nodes with document, viewport and screen bounds.

``await build_layout(conn, tracker, LayoutOptions.from_query(request.query))`` is the /layout
body; its schema, with every field's coordinate space, is ``layout_schema.jsonc`` at the root.

Modules: ``options`` (query parsing, 422s), ``probe`` (one in-page call per request: window
metrics and the change signal), ``snapshot`` (DOMSnapshot boxes by backendNodeId, frames placed),
``axtree`` (AX nodes as records, interesting/roles filters), ``dom_fallback`` (records from the
DOM when the AX tree is unavailable), ``geometry`` (the three spaces and the screen origin),
``builder`` (orchestration, per-tab cache, error mapping), ``encoding`` (encoded bodies reused
while unchanged, ETag, gzip), ``refresh`` (eager background refresh on in-page change
notifications).
"""

from .builder import build_layout
from .options import LayoutOptions

__all__ = ["LayoutOptions", "build_layout"]
