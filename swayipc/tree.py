"""Sway's window tree as its IPC answers GET_TREE: which nodes are windows and where they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict


class Rect(TypedDict):
    x: int
    y: int
    width: int
    height: int


# Functional form: "class" is a keyword.
WindowProperties = TypedDict("WindowProperties", {
    "class": "str | None", "instance": "str | None", "title": "str | None", "transient_for": "int | None"},
    total=False)


class SwayNode(TypedDict, total=False):
    """A node of GET_TREE's answer: the fields we read (Sway sends more)."""
    id: int
    type: str                    # "root", "output", "workspace", "con", "floating_con"
    name: str | None
    rect: Rect
    window_rect: Rect            # the client area, relative to rect
    nodes: list[SwayNode]
    floating_nodes: list[SwayNode]
    focused: bool
    visible: bool
    fullscreen_mode: int
    app_id: str | None           # Wayland windows
    window: int | None           # X11 (Xwayland) windows' X id
    window_properties: WindowProperties
    pid: int | None
    shell: str


def is_window(node: SwayNode) -> bool:
    return node.get("type") in ("con", "floating_con") and not node.get("nodes") and (
        node.get("app_id") is not None or node.get("window") is not None or node.get("pid") is not None)


def leaves(node: SwayNode, workspace: SwayNode | None) -> Iterator[tuple[SwayNode, SwayNode | None]]:
    if node.get("type") == "workspace":
        workspace = node
    if is_window(node):
        yield node, workspace
    for child in [*node.get("nodes", []), *node.get("floating_nodes", [])]:
        yield from leaves(child, workspace)


def window_nodes(tree: SwayNode) -> Iterator[SwayNode]:
    """Every window node of Sway's tree: tiled, floating and in the scratchpad."""
    return (node for node, _workspace in leaves(tree, None))
