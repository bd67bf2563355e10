"""The /layout query, parsed and validated: a bad value is a 422 naming the parameter."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from httpapi.fields import F, Bool, Enum, Int, Model, Str

MAX_NODES_LIMIT = 1_000_000
BOUNDS_SPACES = ("document", "viewport", "screen")
TAB_ORDERS = ("front", "strip")
ROLE_LIST = re.compile(r"^\s*[A-Za-z0-9_-]+\s*(,\s*[A-Za-z0-9_-]+\s*)*,?\s*$")


def _role_list(value: str) -> str | None:
    return None if ROLE_LIST.match(value) else "expected a comma-separated list of roles, e.g. button,link"


def not_blank(value: str) -> str | None:
    return None if value.strip() else "must be a target id or a non-empty prefix of one"


LAYOUT_QUERY = Model("LayoutQuery", [
    F("tab", Str(min_length=1, check=not_blank, pattern=r"\S"),
      description="Target id, or a unique prefix of one: only that tab."),
    F("interesting", Bool(), default=False, description="Leave out ignored and generic nodes."),
    F("roles", Str(min_length=1, check=_role_list, pattern=ROLE_LIST.pattern),
      description="Comma-separated roles to keep, case-insensitive (e.g. button,link)."),
    F("max_nodes", Int(minimum=1, maximum=MAX_NODES_LIMIT), description="At most this many nodes per tab."),
    F("fresh", Bool(), default=False, description="A full read of every tab: no cache, no incremental patch."),
    F("bounds", Enum(BOUNDS_SPACES),
      description="The space of each node's bounds (and its borderBox): document (CSS px from the "
                  "document's top-left, the documented contract), viewport (CSS px from the visible "
                  "viewport's top-left, what the reference implementation's DOM.getBoxModel gave) or "
                  "screen (desktop pixels, the node's screen box). Default: the server's "
                  "--bounds-space (env SIDECAR_BOUNDS_SPACE), document unless set."),
    F("order", Enum(TAB_ORDERS),
      description="front: the tab in front first, then the others in tab-strip order (CDP's /json "
                  "order, which the reference listed); strip: tab-strip order. Default: the server's "
                  "--tab-order (env SIDECAR_TAB_ORDER), front unless set."),
    F("inline_text_boxes", Bool(), default=False,
      description="Also report Chromium's InlineTextBox nodes (one per line of text, with their bounds) "
                  "under their StaticText node."),
])


@dataclass(frozen=True)
class LayoutOptions:
    tab: str | None = None                       # target id or unique prefix; None = every tab
    interesting: bool = False                    # drop ignored/generic nodes, re-parent children
    roles: frozenset[str] | None = None          # keep only these roles (case-insensitive)
    max_nodes: int | None = None                 # per tab, after filtering
    fresh: bool = False                          # read every tab whole: no cache, no patch
    bounds_space: str = "document"               # the space of each node's "bounds"
    order: str = "front"                         # tab order: "front" tab first, or "strip"
    inline_text_boxes: bool = False              # keep Chromium's InlineTextBox nodes
    # Hit-test the interactive nodes (each node's "hittable"); off for in-process readers that
    # do not use it (the agent's snapshot), never from a query: /layout always has them.
    hit_tests: bool = True

    @classmethod
    def from_query(cls, query: Mapping[str, str], bounds_space: str = "document",
                   order: str = "front") -> LayoutOptions:
        """The options of a /layout query string; a bad or unknown parameter is a 422 naming it
        (the same model, LAYOUT_QUERY, generates the OpenAPI document).
        ``bounds_space`` and ``order``: the server's defaults for those parameters."""
        values = LAYOUT_QUERY.validate(dict(query), coerce=True)
        roles = values["roles"]
        return cls(tab=values["tab"].strip() if values["tab"] is not None else None,
                   interesting=values["interesting"],
                   roles=frozenset(part.strip().lower() for part in roles.split(",") if part.strip())
                   if roles is not None else None,
                   max_nodes=values["max_nodes"], fresh=values["fresh"],
                   bounds_space=values["bounds"] or bounds_space, order=values["order"] or order,
                   inline_text_boxes=values["inline_text_boxes"])
