"""The JSON shape of the accessibility tree, and the filters that shape it.

Nodes from both sources share one shape: id (saying its source), source, role, name, description,
value, states, actions, bounds and center in screen pixels (null when the node is not on screen,
or with ``bounds_unavailable`` when its place is not known: placement.py), children. Applications add pid and bus_name; their top-levels add the X window they belong to.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from httpapi.json_types import JSONValue

from .ids import atspi_id
from .reader import Accessible, Application
from .vocabulary import INTERACTIVE_ROLES


class Box(TypedDict):
    x: float
    y: float
    width: float
    height: float


class Point(TypedDict):
    x: int
    y: int


class AXValue(TypedDict):
    """CDP's AXValue, as the sidecar's /layout nodes carry their role, name, value, description."""
    type: str
    value: JSONValue


class WindowRef(TypedDict):
    """The X window a top-level belongs to (xwindows.py)."""
    id: int
    frame_id: int | None
    title: str | None
    wm_class: list[str | None] | None
    pid: int | None


class Placement(TypedDict, total=False):
    """How a top-level's boxes were placed on the screen (placement.py)."""
    source: str | None
    reason: str          # not placed: why
    window: int
    offset: Point
    inset: int


class MergedTab(TypedDict):
    """The sidecar's tab a browser document's children come from (merge.py)."""
    source: str
    tab: str
    url: str | None
    title: str | None


class Node(TypedDict):
    id: str
    source: str          # "atspi" or "web"
    role: str
    name: str
    description: str | AXValue    # AT-SPI's text; a web node's /layout AXValue
    value: str | AXValue | None
    states: list[str]
    actions: list[str] | None
    bounds: Box | None
    center: Point | None
    children: list[Node]
    pid: NotRequired[int | None]             # applications
    bus_name: NotRequired[str]
    error: NotRequired[str]
    window: NotRequired[WindowRef | None]    # their top-levels
    placement: NotRequired[Placement]
    bounds_unavailable: NotRequired[str]
    visible: NotRequired[bool]               # web nodes
    merged: NotRequired[MergedTab]           # a browser document replaced by its tab's nodes
    child_count: NotRequired[int]            # children left out by max_depth

# Kept whatever the filters say: they give the tree its structure and carry the X window.
TOP_LEVEL_DEPTH = 1


@dataclass(frozen=True)
class TreeFilter:
    interesting: bool = False
    roles: frozenset[str] | None = None
    max_depth: int | None = None
    max_nodes: int | None = None


def rect(x: float, y: float, width: float, height: float) -> tuple[Box, Point]:
    return ({"x": x, "y": y, "width": width, "height": height},
            {"x": int(x + width / 2), "y": int(y + height / 2)})


def accessible_node(node: Accessible) -> Node:
    bounds = center = None
    if node.bounds is not None and node.bounds[2] > 0 and node.bounds[3] > 0:
        bounds, center = rect(*node.bounds)
    return {"id": atspi_id(node.bus, node.path), "source": "atspi", "role": node.role,
            "name": node.name, "description": node.description, "value": node.value,
            "states": node.states, "actions": node.actions, "bounds": bounds, "center": center,
            "children": [accessible_node(child) for child in node.children]}


def application_node(app: Application) -> Node:
    if app.root is not None:
        node = accessible_node(app.root)
    else:
        node = {"id": atspi_id(app.bus, "/org/a11y/atspi/accessible/root"), "source": "atspi",
                "role": "application", "name": "", "description": "", "value": None, "states": [],
                "actions": None, "bounds": None, "center": None, "children": []}
    node["pid"] = app.pid
    node["bus_name"] = app.bus
    if app.error:
        node["error"] = app.error
    for top in node["children"]:
        top.setdefault("window", None)
    return node


def walk(nodes: Iterable[Node]) -> Iterator[Node]:
    for node in nodes:
        yield node
        yield from walk(node["children"])


def on_screen(node: Node) -> bool:
    if node["bounds"] is None:
        # Showing, but where could not be said (placement.py): kept, not lost.
        return "bounds_unavailable" in node and "showing" in node["states"]
    if node["source"] == "atspi":
        return "showing" in node["states"]
    return True


def interesting(node: Node) -> bool:
    if not on_screen(node):
        return False
    # Not "has actions": Chromium gives every object doDefault, panels included.
    return bool(node["name"] or node["value"] or node["role"] in INTERACTIVE_ROLES
                or "editable" in node["states"])


def _shaped(node: Node, flt: TreeFilter, depth: int) -> list[Node]:
    """The node (with its shaped children), or its shaped children in its place when a filter
    drops it: a dropped node's kept descendants move up to its parent."""
    if flt.interesting and depth > 0 and node["source"] == "atspi" and "showing" not in node["states"]:
        return []  # a hidden dialog, a closed menu's items, a hidden tab's page: nothing on screen
    children = [kept for child in node["children"] for kept in _shaped(child, flt, depth + 1)]
    keep = depth <= TOP_LEVEL_DEPTH
    if not keep:
        keep = (not flt.interesting or interesting(node)) and (
            flt.roles is None or node["role"].lower() in flt.roles)
    if not keep:
        return children
    return [{**node, "children": children}]


def _limit(nodes: list[Node], flt: TreeFilter, depth: int, budget: list[int]) -> tuple[list[Node], bool]:
    out: list[Node] = []
    cut = False
    for node in nodes:
        if budget[0] <= 0:
            return out, True
        budget[0] -= 1
        children = node["children"]
        if flt.max_depth is not None and depth >= flt.max_depth:
            cut_here = bool(children)
            out.append({**node, "children": [], "child_count": len(children)} if cut_here else node)
            continue
        kept, child_cut = _limit(children, flt, depth + 1, budget)
        cut |= child_cut
        out.append({**node, "children": kept})
    return out, cut


def shape(apps: list[Node], flt: TreeFilter) -> tuple[list[Node], int, bool]:
    """Filtered applications, their node count, and whether max_nodes cut the tree.
    max_depth counts from the applications (0: applications only)."""
    shaped = [kept for app in apps for kept in _shaped(app, flt, 0)]
    budget = [flt.max_nodes if flt.max_nodes is not None else 1 << 62]
    limited, cut = _limit(shaped, flt, 0, budget)
    return limited, sum(1 for _ in walk(limited)), cut
