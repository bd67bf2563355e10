"""The /layout query, parsed and validated: a bad value is a 422 naming the parameter."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sidecar.models import LAYOUT_QUERY, MAX_NODES_LIMIT

__all__ = ["MAX_NODES_LIMIT", "LayoutOptions"]


@dataclass(frozen=True)
class LayoutOptions:
    tab: str | None = None                       # target id or unique prefix; None = every tab
    interesting: bool = False                    # drop ignored/generic nodes, re-parent children
    roles: frozenset[str] | None = None          # keep only these roles (case-insensitive)
    max_nodes: int | None = None                 # per tab, after filtering
    fresh: bool = False                          # read every tab whole: no cache, no patch

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> LayoutOptions:
        """The options of a /layout query string; a bad or unknown parameter is a 422 naming it
        (the same model, sidecar.models.LAYOUT_QUERY, generates the OpenAPI document)."""
        values = LAYOUT_QUERY.validate(dict(query), coerce=True)
        roles = values["roles"]
        return cls(tab=values["tab"].strip() if values["tab"] is not None else None,
                   interesting=values["interesting"],
                   roles=frozenset(part.strip().lower() for part in roles.split(",") if part.strip())
                   if roles is not None else None,
                   max_nodes=values["max_nodes"], fresh=values["fresh"])
