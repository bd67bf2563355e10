"""One tab's /layout nodes as the agent's tree: containers without meaning dissolved into their
parents, iframe documents under their iframe, and a ref on each element an agent can act on or
cite. The same nodes as /layout, so the same roles and names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .layout_node import LayoutNode
from .refs import ElementKey, RefTable

# Roles an agent acts on.
ACTIONABLE = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
    "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton",
    "treeitem", "iframe", "menubutton", "togglebutton", "textarea", "scrollbar", "gridcell",
    "disclosuretriangle", "popupbutton", "colorwell", "date", "datetime", "inputtime",
})
# Roles an agent cites (named content).
CITABLE = frozenset({"heading", "cell", "columnheader", "rowheader", "img", "image", "dialog",
                     "alertdialog", "alert", "status", "figure", "table", "form", "row"})
# Chromium's internal role names as agents know them.
ROLE_NAMES = {"Iframe": "iframe", "IframePresentational": "iframe", "StaticText": "text",
              "MenuListOption": "option", "MenuListPopup": "listbox", "LabelText": "label",
              "ListMarker": "listmarker", "DisclosureTriangle": "button", "PopUpButton": "combobox",
              "Abbr": "abbr", "Canvas": "canvas", "Video": "video", "Audio": "audio",
              "Details": "group", "Summary": "button", "TextField": "textbox"}
# Nodes that carry nothing of their own: their children take their place.
DISSOLVED = frozenset({"none", "generic", "presentation", "LineBreak", "InlineTextBox",
                       "RootWebArea", "WebArea", "GenericContainer", "Ignored", "Unknown",
                       "ListMarker", "group_unnamed", "paragraph_unnamed", "section", "Section",
                       "MenuListPopup"})
STATE_FLAGS = ("checked", "expanded", "disabled", "selected", "focused", "pressed", "required",
               "readonly")


@dataclass
class AgentNode:
    role: str
    name: str
    node: LayoutNode                           # the /layout node
    value: str | None = None
    ref: str | None = None
    key: ElementKey | None = None
    actionable: bool = False
    children: list[AgentNode] = field(default_factory=list)


def _role(node: LayoutNode) -> str:
    role = node.get("role")
    value = (role.get("value") if role else None) or ""
    return ROLE_NAMES.get(value, value)


def _name(node: LayoutNode) -> str:
    name = node.get("name")
    return str((name.get("value") if name else None) or "")


# Grouping roles that add depth, not meaning, when unnamed.
DISSOLVED_UNNAMED = frozenset({
    "group", "paragraph", "label", "Legend", "form", "LabelText", "Section", "section",
    "LayoutTable", "LayoutTableRow", "LayoutTableCell", "list", "listitem", "article", "region",
    "main", "navigation", "banner", "contentinfo", "complementary", "Pre", "blockquote",
    "emphasis", "strong", "mark", "code", "time", "subscript", "superscript"})


def _dissolved(node: LayoutNode, role: str, name: str) -> bool:
    if node.get("ignored"):
        return True
    if role in DISSOLVED:
        return True
    return not name and role in DISSOLVED_UNNAMED


def key_of(node: LayoutNode, loaders: dict[str, str]) -> ElementKey | None:
    backend = node.get("backendDOMNodeId")
    frame_id = node.get("frameId")
    target_id = node.get("targetId")
    if not isinstance(backend, int) or not frame_id or not target_id:
        return None
    return ElementKey(target_id, frame_id, backend, loaders.get(frame_id, ""))


def build_tree(nodes: Sequence[LayoutNode], loaders: dict[str, str],
               ref_for: Callable[[ElementKey], str]) -> list[AgentNode]:
    """The top-level agent nodes of a tab's /layout nodes (in /layout's pre-order)."""
    by_id = {node["nodeId"]: node for node in nodes}
    roots = [node for node in nodes if node.get("parentId") not in by_id]

    def convert(node: LayoutNode, out: list[AgentNode]) -> None:
        # An explicit stack instead of recursion: documents can nest deeper than Python's limit.
        # Children are pushed reversed, so each parent receives them in document order.
        stack: list[tuple[LayoutNode, list[AgentNode]]] = [(node, out)]
        while stack:
            current, into = stack.pop()
            role, name = _role(current), _name(current)
            if role == "text":              # (its children are inline text boxes, if any)
                if name.strip():
                    into.append(AgentNode("text", name, current))
                continue
            children = [by_id[c] for c in reversed(current.get("childIds", ())) if c in by_id]
            if _dissolved(current, role, name):
                stack.extend([(child, into) for child in children])
                continue
            made = AgentNode(role, name, current, value=current.get("valueText"))
            states = current.get("states") or {}
            made.actionable = role.lower() in ACTIONABLE or (
                bool(states.get("focusable")) and role not in ("text", "dialog", "alertdialog"))
            if made.actionable or (name and role.lower() in CITABLE):
                made.key = key_of(current, loaders)
                if made.key is not None:
                    made.ref = ref_for(made.key)
            into.append(made)
            kids = made.children
            stack.extend([(child, kids) for child in children])

    top: list[AgentNode] = []
    for root in roots:
        convert(root, top)
    return top


def drop_redundant_text(nodes: list[AgentNode]) -> None:
    """Text that repeats a name or value already on screen says nothing new: a control's own
    label or value, its group's legend, a field's label beside the field."""
    def same(a: str, b: str) -> bool:
        return bool(a) and " ".join(a.split()) == " ".join(b.split())

    top = AgentNode("", "", {"nodeId": ""}, children=list(nodes))
    stack = [top]
    while stack:
        node = stack.pop()
        if node.children and all(c.role == "text" for c in node.children):
            text = " ".join(c.name for c in node.children)
            if same(text, node.name) or same(text, str(node.value or "")):
                node.children = []
        kids = node.children
        node.children = [c for i, c in enumerate(kids) if not (c.role == "text" and (
            same(c.name, node.name)
            or (i + 1 < len(kids) and kids[i + 1].role != "text" and same(c.name, kids[i + 1].name))
            or (i > 0 and kids[i - 1].role != "text" and same(c.name, kids[i - 1].name))))]
        stack.extend(node.children)
    nodes[:] = top.children


def walk(nodes: list[AgentNode]) -> list[AgentNode]:
    """Every node below ``nodes``, pre-order."""
    out: list[AgentNode] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def agent_nodes(nodes: Sequence[LayoutNode], loaders: dict[str, str], table: RefTable) -> list[AgentNode]:
    """The tab's agent tree with refs from its table."""
    roots = build_tree(nodes, loaders, table.ref_for)
    drop_redundant_text(roots)
    return roots
