"""desktopd's accessibility tree (GET /api/v1/accessibility's JSON) as OSWorld's XML: one element a
node named by its role (spaces become dashes), the name as an attribute, states, screen extents,
actions and values in OSWorld's namespaces (OSWorld's server writes the same prefixes and URIs, so
its agents' XPath and linearisers read ours). The root is ``desktop-frame`` as on Ubuntu."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

from desktopd.accessibility.snapshot import Node

_NS = "https://accessibility.ubuntu.example.org/ns/"
NAMESPACES = {"st": _NS + "state", "attr": _NS + "attributes", "cp": _NS + "component",
              "doc": _NS + "document", "docattr": _NS + "document/attributes", "txt": _NS + "text",
              "val": _NS + "value", "act": _NS + "action"}
# XML names allow fewer characters than AT-SPI role and action names use.
_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]")
# Roles whose value is the text they show (OSWorld's server puts Text.getText in the element).
TEXT_ROLES = frozenset({"text", "entry", "paragraph", "terminal", "label", "heading",
                        "document text", "password text", "editbar", "static", "section",
                        "textbox", "searchbox", "StaticText"})


def xml_name(raw: str, fallback: str) -> str:
    name = _NOT_NAME.sub("-", raw.strip().replace(" ", "-")) or fallback
    return name if name[0].isalpha() else f"{fallback}-{name}"


def _text(raw: object) -> str | None:
    """A value or description as text: AT-SPI gives strings, a web node merged from the sidecar's
    /layout gives CDP's AXValue objects ({"type", "value"})."""
    if isinstance(raw, Mapping):
        raw = raw.get("value")
    return None if raw is None or raw == "" else str(raw)


def _value(node: Node) -> str | None:
    return _text(node.get("value"))


def _attributes(node: Node) -> list[tuple[str, str]]:
    attrs = [("name", _text(node.get("name")) or "")]
    states = list(node.get("states") or [])
    if node.get("visible"):   # a web node from the sidecar says it is in the viewport this way
        states += [state for state in ("showing", "visible") if state not in states]
    attrs += [(f"st:{xml_name(state, 'state')}", "true") for state in states]
    bounds = node.get("bounds")
    if bounds is not None and "showing" in states:
        attrs.append(("cp:screencoord", f"({int(bounds['x'])}, {int(bounds['y'])})"))
        attrs.append(("cp:size", f"({int(bounds['width'])}, {int(bounds['height'])})"))
    description = _text(node.get("description"))
    if description is not None:
        attrs.append(("attr:description", description))
    for action in node.get("actions") or []:
        attrs.append((f"act:{xml_name(action, 'action')}_desc", ""))
    value = _value(node)
    if value is not None and node.get("role") not in TEXT_ROLES:
        attrs.append(("val:value", value))
    seen: set[str] = set()
    unique = []
    for key, val in attrs:   # two states may map to one XML name
        if key not in seen:
            seen.add(key)
            unique.append((key, val))
    return unique


def _element(node: Node, out: list[str], depth: int) -> None:
    tag = xml_name(node.get("role") or "unknown", "unknown")
    attrs = "".join(f" {key}={quoteattr(val)}" for key, val in _attributes(node))
    if depth == 0:
        attrs = "".join(f' xmlns:{p}="{uri}"' for p, uri in NAMESPACES.items()) + attrs
    text = _value(node) if node.get("role") in TEXT_ROLES else None
    children = node.get("children") or []
    if not children and not text:
        out.append(f"<{tag}{attrs}/>")
        return
    out.append(f"<{tag}{attrs}>")
    if text:
        out.append(escape(text.replace("\ufffc", "").replace("\ufffd", "")))
    for child in children:
        _element(child, out, depth + 1)
    out.append(f"</{tag}>")


def osworld_xml(applications: Iterable[Node]) -> str:
    """The whole desktop: a ``desktop-frame`` named main holding every application."""
    out: list[str] = []
    # A node of the tree's shape; the fields the XML does not write are left empty.
    _element({"role": "desktop frame", "name": "main", "states": [], "children": list(applications),
              "id": "", "source": "", "description": "", "value": None, "actions": None,
              "bounds": None, "center": None}, out, 0)
    return "".join(out)
