"""Node records built from a DOM snapshot, for when the accessibility tree is unavailable.

Same shape as axtree records. Roles come from the role attribute or the element's implicit role
(a small HTML-AAM table, not the full algorithm); names from aria-label, alt, title, placeholder,
value, or the element's own text. Responses built this way say ``"source": "dom"``.
"""

from __future__ import annotations

from httpapi.json_types import JSONValue

from .axtree import Record, name_value, role_value
from ..snapshot.dom_boxes import Document

_IMPLICIT_ROLES = {
    "A": "link", "BUTTON": "button", "SELECT": "combobox", "TEXTAREA": "textbox", "IMG": "image",
    "H1": "heading", "H2": "heading", "H3": "heading", "H4": "heading", "H5": "heading",
    "H6": "heading", "NAV": "navigation", "MAIN": "main", "HEADER": "banner",
    "FOOTER": "contentinfo", "FORM": "form", "UL": "list", "OL": "list", "LI": "listitem",
    "TABLE": "table", "TR": "row", "TD": "cell", "TH": "columnheader", "IFRAME": "Iframe",
    "DIALOG": "dialog", "P": "paragraph", "LABEL": "LabelText", "OPTION": "option",
    "SUMMARY": "DisclosureTriangle", "HTML": "RootWebArea", "BODY": "generic",
}
_INPUT_ROLES = {"button": "button", "submit": "button", "reset": "button", "checkbox": "checkbox",
                "radio": "radio", "range": "slider", "search": "searchbox", "image": "button"}
_SKIPPED = frozenset({"HEAD", "SCRIPT", "STYLE", "META", "LINK", "TITLE", "NOSCRIPT", "TEMPLATE"})
_NAME_ATTRIBUTES = ("aria-label", "alt", "title", "placeholder", "value")
_ELEMENT, _TEXT = 1, 3


def dom_records(doc: Document, strings: list[str], id_prefix: str = "") -> list[Record]:
    nodes = doc.raw.get("nodes", {})
    kinds: list[int] = nodes.get("nodeType", [])
    names: list[int] = nodes.get("nodeName", [])
    values: list[int] = nodes.get("nodeValue", [])
    parents: list[int] = nodes.get("parentIndex", [])
    backend_ids: list[int] = nodes.get("backendNodeId", [])
    attributes: list[list[int]] = nodes.get("attributes", [])

    def text(index: int) -> str:
        return strings[index] if 0 <= index < len(strings) else ""

    records: dict[int, Record] = {}
    own_text: dict[int, list[str]] = {}
    for i, kind in enumerate(kinds):
        parent = parents[i] if i < len(parents) else -1
        if kind == _TEXT and parent in records:
            own_text.setdefault(parent, []).append(text(values[i]) if i < len(values) else "")
            continue
        tag = text(names[i]).upper()
        if kind != _ELEMENT or tag in _SKIPPED or (parent >= 0 and parent not in records and i > 0
                                                    and kinds[parent] == _ELEMENT):
            continue
        attrs = attributes[i] if i < len(attributes) else []
        attr = {text(attrs[k]).lower(): text(attrs[k + 1]) for k in range(0, len(attrs) - 1, 2)}
        role = attr.get("role") or _implicit_role(tag, attr)
        name = next((attr[a] for a in _NAME_ATTRIBUTES if attr.get(a)), "")
        states: dict[str, JSONValue] = {}
        if "disabled" in attr:
            states["disabled"] = True
        if "checked" in attr:
            states["checked"] = True
        record: Record = {
            "nodeId": f"{id_prefix}dom{backend_ids[i]}", "role": role_value(_role_type(role), role), "name": name_value(name),
            "valueText": attr.get("value") or None, "descriptionText": attr.get("title") or None,
            "states": states, "properties": [], "propertyValues": {}, "ignored": False,
            "parentId": records[parent]["nodeId"] if parent in records else None,
            "childIds": [], "backendDOMNodeId": backend_ids[i], "frameId": doc.frame_id,
        }
        # CDP's AXValue shapes, left out when absent (as from the accessibility tree).
        if attr.get("value"):
            record["value"] = {"type": "string", "value": attr["value"]}
        if attr.get("title"):
            record["description"] = {"type": "computedString", "value": attr["title"]}
        records[i] = record
        if parent in records:
            records[parent]["childIds"].append(record["nodeId"])
    for index, parts in own_text.items():
        record = records[index]
        if not record["name"]["value"]:
            record["name"] = name_value(" ".join(" ".join(parts).split())[:200])
    return list(records.values())


def _role_type(role: str) -> str:
    # Chromium's own roles (RootWebArea, StaticText, Iframe...) are capitalised; CDP calls them
    # "internalRole", ARIA roles "role".
    return "internalRole" if role[:1].isupper() else "role"


def _implicit_role(tag: str, attr: dict[str, str]) -> str:
    if tag == "INPUT":
        return _INPUT_ROLES.get(attr.get("type", "text").lower(), "textbox")
    if tag == "A" and "href" not in attr:
        return "generic"
    return _IMPLICIT_ROLES.get(tag, "generic")
