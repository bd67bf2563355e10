"""The windows routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_query

from . import handlers
from .models import ACTION_BODIES, TREE_QUERY

RECT = {"type": "object", "properties": {
    "x": {"type": "integer"}, "y": {"type": "integer"}, "width": {"type": "integer"},
    "height": {"type": "integer"}, "space": {"const": "screen"}}}
TREE = {"type": "object", "properties": {
    "screen": {"type": "object", "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}}},
    "coordinate_space": {"const": "screen pixels"},
    "window_manager": {"type": ["object", "null"]},
    "windows": {"type": "array", "description": "Bottom to top.", "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "frame_id": {"type": "integer"}, "title": {"type": "string"},
        "wm_class": {"type": ["array", "null"], "items": {"type": "string"}},
        "pid": {"type": ["integer", "null"]}, "desktop": {"type": ["integer", "null"]},
        "stacking": {"type": "integer"}, "focused": {"type": "boolean"},
        "minimized": {"type": "boolean"}, "maximized": {"type": "boolean"},
        "visible": {"type": "boolean"},
        "window_type": {"type": "string", "description": "EWMH's _NET_WM_WINDOW_TYPE, lower case "
                        "without its prefix: normal, dialog, utility, ... (a transient window "
                        "without one: dialog)."},
        "transient_for": {"type": ["integer", "null"], "description": "WM_TRANSIENT_FOR: the window "
                          "a dialog belongs to."},
        "frame": {**RECT, "description": "With decorations, screen pixels."},
        "client": {**RECT, "description": "The application's own area, screen pixels."}}}}}}
I3_TREE = {"type": "object", "description": "i3/Sway IPC get_tree: root > output > workspace > con "
           "(application windows, in nodes) or floating_con (dialogs, transients, utility windows, "
           "in floating_nodes).",
           "required": ["id", "type", "nodes", "floating_nodes", "rect"], "properties": {
               "type": {"const": "root"}, "nodes": {"type": "array"}, "floating_nodes": {"type": "array"},
               "rect": {"type": "object"}, "name": {"type": ["string", "null"]}}}


def _window_routes() -> list[Route]:
    out = []
    for action, model in ACTION_BODIES.items():
        out.append(Route("POST", f"/api/v1/windows/{{id}}/{action}", handlers.window_action_handler(action),
                         f"{action.capitalize()} a top-level window", "windows",
                         body=model if model.fields else None, body_optional=not model.fields,
                         not_found=True))
    return out


ROUTES: list[Route] = [
    Route("GET", "/api/v1/tree", with_query(TREE_QUERY, handlers.tree),
          "Top-level windows in stacking order", "windows",
          success={"application/json": {"schema": {"anyOf": [TREE, I3_TREE]}}},
          description="Geometry fields are screen pixels (see each window's fields). format=i3: the "
                      "i3/Sway get_tree shape instead."),
    Route("GET", "/api/v1/windows/{id}", handlers.window, "One top-level window (as in /tree)",
          "windows", not_found=True, success={"application/json": {"schema": TREE["properties"]["windows"]["items"]}}),
    *_window_routes(),
]
