"""The sidecar's /layout: accessibility nodes with document, viewport and screen bounds.

``await LayoutService(conn, tracker).build(LayoutOptions.from_query(request.query))`` is the
/layout body (the Chromium supervisor makes one service per connection); its schema, with every
field's coordinate space, is ``layout_schema.jsonc`` at the root. docs/sidecar.md draws the
modules and the freshness loop.

``service`` (one per connection: the tabs' state, the counters, error per tab) is the entry; the
subpackages, each importing only those below it:

  freshness/   the loop (check, read, check again, keep), one tab's state, background refresh
  answering/   a capture rendered for the view now, its nodes hit-tested
  reading/     the capture, the readers behind one interface, the whole, patch and frames reads
  output/      the query options, node JSON, bodies as bytes (ETag, gzip)
  records/     accessibility records, the DOM fallback, patches of changed subtrees, splicing
  probing/     the in-page change signal and the freshness check made of it
  snapshot/    DOM snapshots read into boxes, frames placed, parent links, render state
  geometry/    rectangles, the three spaces, clipping, line fragments, click points
  runtime/     the browser side's Protocols (seams), asyncio helpers, memory timing
"""

from .output.options import LayoutOptions
from .service import LayoutService

__all__ = ["LayoutOptions", "LayoutService"]
