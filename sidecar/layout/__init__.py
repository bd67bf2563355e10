"""The sidecar's /layout: accessibility nodes with document, viewport and screen bounds.

``await LayoutService(conn, tracker).build(LayoutOptions.from_query(request.query))`` is the
/layout body (the Chromium supervisor makes one service per connection); its schema, with every
field's coordinate space, is ``layout_schema.jsonc`` at the root. docs/sidecar.md draws the
modules and the freshness loop.

The service and its loop: ``service`` (one per connection: the tabs' state, the counters, error
per tab), ``tab`` (one tab's lock, capture and refresh state), ``freshness`` (check, read, check
again, keep), ``readers`` (the ways to read a tab behind one interface, each switchable),
``answer`` (a capture rendered for the view now), ``refresh`` (background reads on the page's
change notifications), ``encoding`` (bodies as bytes, reused while unchanged; ETag, gzip).

The readers: ``read_whole`` (the reference read, and the rescan after scrolling), ``read_patch``
with ``patch``, ``splice`` and ``restyle`` (only the changed subtrees), ``read_frames`` (a
page's top document alone).

What they stand on: ``seams`` (the Protocols of sessions, tabs, tracker), ``probing`` and
``probe`` (the in-page change signal), ``capture`` (what a read makes; placing nodes),
``snapshot`` and ``geometry`` (DOM boxes and the three spaces), ``axtree`` and ``dom_fallback``
(records), ``render`` (node JSON), ``hits``, ``memory``, ``options``, ``aio``.
"""

from .options import LayoutOptions
from .service import LayoutService

__all__ = ["LayoutOptions", "LayoutService"]
