"""The accessibility routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.fields import F, Bool, Const, Enum, Int, ListOf, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route, with_body, with_query

from . import handlers
from .models import ACCESSIBILITY_ACTION_BODY, ACCESSIBILITY_QUERY

ACCESSIBILITY_NODE = ResponseModel("AccessibleNode", [
    F("id", Str(), description="atspi:<bus>:<object> or web:<tab>:<node>: the source."),
    F("source", Enum(["atspi", "web"], typed=False)), F("role", Str()), F("name", Str()),
    F("description", Str()), F("value", Nullable(Str())),
    F("states", ListOf(Str())),
    F("actions", Nullable(ListOf(Str())),
      description="AT-SPI action names; null when not read (not showing, unnamed and not "
                  "interactive, or a web node)."),
    F("bounds", Nullable(ResponseModel("AccessibleBounds", [
        F("x", Number()), F("y", Number()), F("width", Number()), F("height", Number()),
    ])), description="Screen pixels; null when not on screen."),
    F("center", Nullable(ResponseModel("AccessibleCenter", [F("x", Int()), F("y", Int())])),
      description="Where /api/v1/tablet taps it."),
    F("window", Nullable(Opaque("object")), description="Top-levels only: their X window."),
    F("placement", Opaque("object"), description="Top-levels, window-relative extents only (Sway): "
      "source compositor_window with window and offset, or source null with reason."),
    F("bounds_unavailable", Str(), description="Why bounds is null for a node that has extents: its "
                                               "window could not be placed."),
    F("pid", Nullable(Int()), description="Applications only."),
    F("bus_name", Str(), description="Applications only."),
    F("merged", Opaque("object"), description="merge=browser: the tab whose nodes are the children."),
    F("children", ListOf(Opaque("object", description="Nodes of this shape."))),
], description="An accessible object or a web node.")
PENDING = ResponseModel("AccessibilityPending", [
    F("reason", Enum(["window_not_in_tree", "browser_unavailable"], typed=False)),
    F("window", Opaque("object")), F("detail", Str()),
])
ACCESSIBILITY_TREE = ResponseModel("AccessibilityTree", [
    F("coordinate_space", Const("screen pixels", typed=False)),
    F("screen", Opaque("object")),
    F("applications", ListOf(ACCESSIBILITY_NODE)),
    F("node_count", Int()), F("truncated", Bool()),
    F("placement", Opaque("object"), description="How bounds were placed: source atspi_screen (X11: "
      "the applications' screen extents) or compositor_window (Sway: window-relative extents plus "
      "the window's position)."),
    F("truncated_by", ListOf(Enum(["time_budget", "max_nodes"], typed=False))),
    F("complete", Bool(), description="False while the desktop starts: see pending."),
    F("pending", ListOf(PENDING),
      description="Shown X windows of applications that register on the accessibility bus but have "
                  "no top-level in the tree yet; merge=browser: the browser's pages not yet readable."),
    F("read_ms", Number()), F("duration_ms", Number()),
    F("merge", Opaque("object"), description="merge=browser: status merged, no_browser_document or "
                                             "layout_unavailable (with detail)."),
])

ROUTES: list[Route] = [
    Route("GET", "/api/v1/accessibility", with_query(ACCESSIBILITY_QUERY, handlers.accessibility_tree),
          "The desktop's accessibility (AT-SPI) tree, optionally merged with the browser's /layout",
          "accessibility",
          returns=ACCESSIBILITY_TREE,
          description="Every application's tree with bounds in screen pixels (the space of "
                      "/api/v1/tablet); 503 while the accessibility bus is down."),
    Route("POST", "/api/v1/accessibility/{id}/do",
          with_body(ACCESSIBILITY_ACTION_BODY, handlers.accessibility_do),
          "Perform an AT-SPI action (or focus) on one accessible object", "accessibility",
          not_found=True, extra_errors=(502,),
          id_description="A node id from GET /api/v1/accessibility (atspi:...); 404 when it is "
                         "unknown or gone.", id_pattern=r"^\S+$"),
]
