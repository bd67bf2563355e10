"""Sway's window tree as its IPC answers GET_TREE: which nodes are windows and where they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def is_window(node: dict[str, Any]) -> bool:
    return node.get("type") in ("con", "floating_con") and not node.get("nodes") and (
        node.get("app_id") is not None or node.get("window") is not None or node.get("pid") is not None)


def leaves(node: dict[str, Any], workspace: dict[str, Any] | None) -> Iterator[tuple[dict, dict | None]]:
    if node.get("type") == "workspace":
        workspace = node
    if is_window(node):
        yield node, workspace
    for child in [*node.get("nodes", []), *node.get("floating_nodes", [])]:
        yield from leaves(child, workspace)


def window_nodes(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every window node of Sway's tree: tiled, floating and in the scratchpad."""
    return (node for node, _workspace in leaves(tree, None))
