"""The windows routes' request models: GET /api/v1/tree's query and the bodies of
POST /api/v1/windows/{id}/{action}."""

from __future__ import annotations

from typing import Literal, TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, Enum, Int, Model
from desktopd_contract.limits import COORD_LIMIT


WINDOW_MOVE_BODY = Model("WindowMove", [
    F("x", Int(-COORD_LIMIT, COORD_LIMIT), required=True, description="Frame left, screen pixels."),
    F("y", Int(-COORD_LIMIT, COORD_LIMIT), required=True, description="Frame top, screen pixels."),
])
WINDOW_RESIZE_BODY = Model("WindowResize", [
    F("width", Int(1, COORD_LIMIT), required=True, description="Client width in pixels."),
    F("height", Int(1, COORD_LIMIT), required=True, description="Client height in pixels."),
])
EMPTY_BODY = Model("Empty", [])
ACTION_BODIES = {"focus": EMPTY_BODY, "close": EMPTY_BODY, "minimize": EMPTY_BODY,
                 "maximize": EMPTY_BODY, "restore": EMPTY_BODY, "move": WINDOW_MOVE_BODY,
                 "resize": WINDOW_RESIZE_BODY}

TREE_FORMATS = ("desktopd", "i3")


class TreeQuery(TypedDict):
    format: Literal["desktopd", "i3"] | None


TREE_QUERY = Typed(Model("TreeQuery", [
    F("format", Enum(TREE_FORMATS), description="desktopd (default unless DESKTOPD_TREE_FORMAT says "
      "otherwise) or i3: the get_tree shape of i3/Sway IPC (root, output, workspace; application "
      "windows as tiled con in nodes, dialogs/transients/utility windows as floating_con in "
      "floating_nodes; window_properties.class/instance/title/transient_for, app_id null on X11, pid)."),
]), TreeQuery)
