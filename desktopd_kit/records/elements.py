"""Elements of the sidecar's /layout by what a person would name them: the node acted on with
its path from the root (each ancestor's role and name), its ref in the agent's snapshot, and,
on another desktop, the same element found again by role, name and path."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..hit import ax_value, front_tab


def _nodes(layout: Mapping | None) -> list[dict]:
    tab = front_tab(layout) if layout else None
    return list(((tab or {}).get("layout") or {}).get("nodes") or [])


def _label(node: Mapping) -> dict:
    return {"role": ax_value(node.get("role")), "name": ax_value(node.get("name"))}


def path_of(layout: Mapping | None, node_id: object) -> list[dict]:
    """[{role, name}, ...] from the root to the node (the node last); [] when it is not there."""
    nodes = _nodes(layout)
    by_id = {n.get("nodeId"): n for n in nodes}
    path: list[dict] = []
    current = by_id.get(node_id)
    for _ in range(len(nodes)):
        if current is None:
            break
        path.append(_label(current))
        current = by_id.get(current.get("parentId"))
    return list(reversed(path))


def ref_in_snapshot(snapshot: str | None, role: object, name: object) -> str | None:
    """The ref on the snapshot's first line ``- role "name" [ref=...]``."""
    if not snapshot or not role:
        return None
    found = re.search(rf'- {re.escape(str(role))} "{re.escape(str(name or ""))}" \[ref=(\w+)\]', snapshot)
    return found.group(1) if found else None


def described(layout: Mapping | None, element: Mapping | None, snapshot: str | None) -> dict | None:
    """What a step says of the element acted on: the interactive target (else the hit node)."""
    if not element:
        return None
    node = element.get("target") or element
    return {"role": node.get("role"), "name": node.get("name"), "nodeId": node.get("nodeId"),
            "backendDOMNodeId": node.get("backendDOMNodeId"),
            "ref": ref_in_snapshot(snapshot, node.get("role"), node.get("name")),
            "bounds": node.get("screen"), "path": path_of(layout, node.get("nodeId"))}


def find_again(layout: Mapping | None, role: object, name: object, path: list[dict]) -> tuple[dict | None, int]:
    """The node with this role and name (the one whose path is the recorded one, when several
    are), and how many have the role and name; (None, 0) when none."""
    matches = [n for n in _nodes(layout) if n.get("screen") and _label(n) == {"role": role, "name": name}]
    if len(matches) > 1 and path:
        same = [n for n in matches if path_of(layout, n.get("nodeId")) == path]
        matches = same or matches
    return (matches[0] if matches else None), len(matches)


def center(node: Mapping) -> tuple[int, int]:
    screen = node["screen"]
    c = screen.get("center")
    if c:
        return int(c["x"]), int(c["y"])
    box = screen["borderBox"]
    return int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2)
