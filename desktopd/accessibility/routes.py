"""The accessibility routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body, with_query

from . import handlers
from .models import ACCESSIBILITY_ACTION_BODY, ACCESSIBILITY_QUERY

ACCESSIBILITY_NODE = {"type": "object", "description": "An accessible object or a web node.", "properties": {
    "id": {"type": "string", "description": "atspi:<bus>:<object> or web:<tab>:<node>: the source."},
    "source": {"enum": ["atspi", "web"]}, "role": {"type": "string"}, "name": {"type": "string"},
    "description": {"type": "string"}, "value": {"type": ["string", "null"]},
    "states": {"type": "array", "items": {"type": "string"}},
    "actions": {"type": ["array", "null"], "items": {"type": "string"},
                "description": "AT-SPI action names; null when not read (not showing, unnamed and "
                               "not interactive, or a web node)."},
    "bounds": {"type": ["object", "null"], "description": "Screen pixels; null when not on screen.",
               "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                              "width": {"type": "number"}, "height": {"type": "number"}}},
    "center": {"type": ["object", "null"], "description": "Where /api/v1/tablet taps it.",
               "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
    "window": {"type": ["object", "null"], "description": "Top-levels only: their X window."},
    "placement": {"type": "object", "description": "Top-levels, window-relative extents only (Sway): "
                                                  "source compositor_window with window and offset, "
                                                  "or source null with reason."},
    "bounds_unavailable": {"type": "string", "description": "Why bounds is null for a node that has "
                                                            "extents: its window could not be placed."},
    "pid": {"type": ["integer", "null"], "description": "Applications only."},
    "bus_name": {"type": "string", "description": "Applications only."},
    "merged": {"type": "object", "description": "merge=browser: the tab whose nodes are the children."},
    "children": {"type": "array", "items": {"type": "object", "description": "Nodes of this shape."}}}}
ACCESSIBILITY_TREE = {"type": "object", "properties": {
    "coordinate_space": {"const": "screen pixels"},
    "screen": {"type": "object"},
    "applications": {"type": "array", "items": ACCESSIBILITY_NODE},
    "node_count": {"type": "integer"}, "truncated": {"type": "boolean"},
    "placement": {"type": "object", "description": "How bounds were placed: source atspi_screen (X11: "
                                                   "the applications' screen extents) or "
                                                   "compositor_window (Sway: window-relative extents "
                                                   "plus the window's position)."},
    "truncated_by": {"type": "array", "items": {"enum": ["time_budget", "max_nodes"]}},
    "complete": {"type": "boolean", "description": "False while the desktop starts: see pending."},
    "pending": {"type": "array", "items": {"type": "object", "properties": {
        "reason": {"enum": ["window_not_in_tree", "browser_unavailable"]},
        "window": {"type": "object"}, "detail": {"type": "string"}}},
        "description": "Shown X windows of applications that register on the accessibility bus "
                       "but have no top-level in the tree yet; merge=browser: the browser's pages "
                       "not yet readable."},
    "read_ms": {"type": "number"}, "duration_ms": {"type": "number"},
    "merge": {"type": "object", "description": "merge=browser: status merged, no_browser_document "
                                               "or layout_unavailable (with detail)."}}}

ROUTES: list[Route] = [
    Route("GET", "/api/v1/accessibility", with_query(ACCESSIBILITY_QUERY, handlers.accessibility_tree),
          "The desktop's accessibility (AT-SPI) tree, optionally merged with the browser's /layout",
          "accessibility",
          success={"application/json": {"schema": ACCESSIBILITY_TREE}},
          description="Every application's tree with bounds in screen pixels (the space of "
                      "/api/v1/tablet); 503 while the accessibility bus is down."),
    Route("POST", "/api/v1/accessibility/{id}/do",
          with_body(ACCESSIBILITY_ACTION_BODY, handlers.accessibility_do),
          "Perform an AT-SPI action (or focus) on one accessible object", "accessibility",
          not_found=True, extra_errors=(502,),
          id_description="A node id from GET /api/v1/accessibility (atspi:...); 404 when it is "
                         "unknown or gone.", id_pattern=r"^\S+$"),
]
