"""The /layout query, parsed and validated: a bad value is a 422 naming the parameter."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from desktopd.web.errors import invalid

MAX_NODES_LIMIT = 1_000_000
_KNOWN = frozenset({"tab", "interesting", "roles", "max_nodes", "fresh"})
_TRUE = frozenset({"1", "true", "yes", "on", ""})
_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class LayoutOptions:
    tab: str | None = None                       # target id or unique prefix; None = every tab
    interesting: bool = False                    # drop ignored/generic nodes, re-parent children
    roles: frozenset[str] | None = None          # keep only these roles (case-insensitive)
    max_nodes: int | None = None                 # per tab, after filtering
    fresh: bool = False                          # read every tab whole: no cache, no patch

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> LayoutOptions:
        unknown = sorted(set(query) - _KNOWN)
        if unknown:
            raise invalid(unknown[0], f"unknown parameter; expected one of {sorted(_KNOWN)}")
        tab = query.get("tab")
        if tab is not None and not tab.strip():
            raise invalid("tab", "must be a target id or a non-empty prefix of one")
        return cls(tab=tab.strip() if tab is not None else None,
                   interesting=_parse_bool("interesting", query.get("interesting")),
                   roles=_parse_roles(query.get("roles")),
                   max_nodes=_parse_max_nodes(query.get("max_nodes")),
                   fresh=_parse_bool("fresh", query.get("fresh")))


def _parse_bool(field: str, raw: str | None) -> bool:
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise invalid(field, f"expected true or false, got {raw!r}")


def _parse_roles(raw: str | None) -> frozenset[str] | None:
    if raw is None:
        return None
    roles = frozenset(part.strip().lower() for part in raw.split(",") if part.strip())
    if not roles:
        raise invalid("roles", "expected a comma-separated list of roles, e.g. button,link")
    bad = [role for role in roles if not role.replace("-", "").replace("_", "").isalnum()]
    if bad:
        raise invalid("roles", f"not a role name: {bad[0]!r}")
    return roles


def _parse_max_nodes(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise invalid("max_nodes", f"expected a positive integer, got {raw!r}") from None
    if not 1 <= value <= MAX_NODES_LIMIT:
        raise invalid("max_nodes", f"must be between 1 and {MAX_NODES_LIMIT}, got {value}")
    return value
