"""Which element of the sidecar's /layout a screen point falls on: the smallest node whose
screen border box contains it, in the tab shown in front, inside that tab's viewport."""

from __future__ import annotations

from collections.abc import Mapping

# Roles a user acts on: the target of a click that landed on, say, a button's text.
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
    "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton",
    "treeitem", "PopUpButton", "ToggleButton", "MenuListPopup", "TextField", "textField"})


def _viewport_box(tab: Mapping) -> tuple[float, float, float, float] | None:
    viewport = (tab.get("layout") or {}).get("viewport") or {}
    origin, visual = viewport.get("screenOrigin"), viewport.get("visualViewport")
    if not origin or not visual:
        return None
    ratio = float(viewport.get("devicePixelRatio") or 1.0) * float(visual.get("scale") or 1.0)
    return (origin["x"], origin["y"], visual["clientWidth"] * ratio, visual["clientHeight"] * ratio)


def _inside(box: tuple[float, float, float, float], x: float, y: float) -> bool:
    bx, by, bw, bh = box
    return bx <= x < bx + bw and by <= y < by + bh


def front_tab(layout: Mapping) -> Mapping | None:
    tabs = layout.get("tabs") or []
    shown = [t for t in tabs if t.get("visible")]
    return shown[0] if shown else (tabs[0] if len(tabs) == 1 else None)


def element_at(layout: Mapping | None, x: float, y: float) -> dict | None:
    """The node hit at screen point (x, y), summarised, or None (no layout, outside the page)."""
    if not layout:
        return None
    tab = front_tab(layout)
    if tab is None:
        return None
    viewport = _viewport_box(tab)
    if viewport is not None and not _inside(viewport, x, y):
        return None
    best, best_area = None, None
    for node in (tab.get("layout") or {}).get("nodes") or []:
        screen = node.get("screen")
        if not screen or not node.get("visible", True):
            continue
        box = screen["borderBox"]
        rect = (box["x"], box["y"], box["width"], box["height"])
        if not _inside(rect, x, y):
            continue
        area = rect[2] * rect[3]
        if best_area is None or area <= best_area:   # ties: the later (deeper) node
            best, best_area = node, area
    if best is None:
        return None
    hit = _summary(best)
    hit["tab"] = tab.get("id")
    target = _interactive_ancestor(tab["layout"]["nodes"], best)
    hit["target"] = _summary(target) if target is not None else None
    return hit


def _summary(node: Mapping) -> dict:
    screen = node.get("screen")
    return {"nodeId": node.get("nodeId"), "backendDOMNodeId": node.get("backendDOMNodeId"),
            "role": ax_value(node.get("role")), "name": ax_value(node.get("name")),
            "screen": dict(screen["borderBox"]) if screen else None}


def _interactive_ancestor(nodes: list, node: Mapping) -> Mapping | None:
    """The node itself or its nearest ancestor with an interactive role (bounded by the tree)."""
    by_id = {n.get("nodeId"): n for n in nodes}
    current: Mapping | None = node
    for _ in range(len(nodes)):
        if current is None:
            return None
        if ax_value(current.get("role")) in INTERACTIVE_ROLES:
            return current
        current = by_id.get(current.get("parentId"))
    return None


def ax_value(ax: object) -> object:
    """An accessibility property as a plain value (/layout gives role and name as {"type", "value"})."""
    return ax.get("value") if isinstance(ax, Mapping) else ax
