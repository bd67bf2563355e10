"""The /layout query, parsed and validated: a bad value is a 422 naming the parameter."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sidecar.server.request_models import BOUNDS_SPACES, LAYOUT_QUERY, MAX_NODES_LIMIT, TAB_ORDERS

__all__ = ["BOUNDS_SPACES", "MAX_NODES_LIMIT", "TAB_ORDERS", "LayoutOptions"]


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
        (the same model, sidecar.server.request_models.LAYOUT_QUERY, generates the OpenAPI document).
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
