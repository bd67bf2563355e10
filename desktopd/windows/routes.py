"""The windows routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.fields import F, AnyOf, Bool, Const, Int, ListOf, Nullable, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route, with_query

from . import handlers
from .models import ACTION_BODIES, TREE_QUERY

RECT = ResponseModel("Rect", [
    F("x", Int()), F("y", Int()), F("width", Int()), F("height", Int()),
    F("space", Const("screen", typed=False)),
])
WINDOW = ResponseModel("Window", [
    F("id", Int()), F("frame_id", Int()), F("title", Str()),
    F("wm_class", Nullable(ListOf(Str()))),
    F("pid", Nullable(Int())), F("desktop", Nullable(Int())),
    F("stacking", Int()), F("focused", Bool()),
    F("minimized", Bool()), F("maximized", Bool()),
    F("visible", Bool()),
    F("window_type", Str(), description="EWMH's _NET_WM_WINDOW_TYPE, lower case without its "
                                        "prefix: normal, dialog, utility, ... (a transient window "
                                        "without one: dialog)."),
    F("transient_for", Nullable(Int()), description="WM_TRANSIENT_FOR: the window a dialog belongs to."),
    F("frame", RECT, description="With decorations, screen pixels."),
    F("client", RECT, description="The application's own area, screen pixels."),
])
SCREEN_SIZE = ResponseModel("ScreenSize", [F("width", Int()), F("height", Int())])
TREE = ResponseModel("WindowTree", [
    F("screen", SCREEN_SIZE),
    F("coordinate_space", Const("screen pixels", typed=False)),
    F("window_manager", Nullable(Opaque("object"))),
    F("windows", ListOf(WINDOW), description="Bottom to top."),
])
# i3/Sway's own shape: its node fields beyond these are documented by i3, not here.
I3_TREE = ResponseModel("I3Tree", [
    F("id", Int(), required=True), F("type", Const("root", typed=False), required=True),
    F("nodes", Opaque("array"), required=True), F("floating_nodes", Opaque("array"), required=True),
    F("rect", Opaque("object"), required=True), F("name", Nullable(Str())),
], description="i3/Sway IPC get_tree: root > output > workspace > con (application windows, in "
               "nodes) or floating_con (dialogs, transients, utility windows, in floating_nodes).")


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
          returns=AnyOf([TREE, I3_TREE]),
          description="Geometry fields are screen pixels (see each window's fields). format=i3: the "
                      "i3/Sway get_tree shape instead."),
    Route("GET", "/api/v1/windows/{id}", handlers.window, "One top-level window (as in /tree)",
          "windows", not_found=True, returns=WINDOW),
    *_window_routes(),
]
