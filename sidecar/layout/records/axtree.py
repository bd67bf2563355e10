"""Accessibility nodes (Accessibility.getFullAXTree) as /layout node records, and tree filters.

A record holds everything about a node that does not depend on scroll: the geometry fields are
added per request by the readers. Records are plain dicts in tree pre-order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Required, TypedDict

from httpapi.json_types import JSONValue

from ...cdp.protocol.cdp_types import AccessibilityAXNode as AXNode, AccessibilityAXProperty, AccessibilityAXValue

# AX properties reported as node states; their values are booleans, "mixed" (checked, pressed)
# or a token (editable: "plaintext"/"richtext", invalid: "grammar"/"spelling").
STATE_PROPERTIES = ("focused", "focusable", "disabled", "editable", "expanded", "selected",
                    "checked", "pressed", "required", "readonly", "invalid", "modal",
                    "multiselectable", "multiline", "busy", "hidden", "settable")
# Other scalar AX properties worth keeping (relations such as labelledby are node lists: dropped).
OTHER_PROPERTIES = ("level", "url", "valuemin", "valuemax", "valuetext", "autocomplete",
                    "haspopup", "orientation", "keyshortcuts", "roledescription", "live",
                    "placeholder")
# Roles dropped by ?interesting=true (besides ignored nodes): layout-only wrappers.
UNINTERESTING_ROLES = frozenset({"generic", "none", "presentation", "inlinetextbox",
                                 "linebreak", "ignored"})


class Record(TypedDict, total=False):
    """A node's record: CDP's shapes under CDP's names (the reference contract: role, name,
    value, description and properties as AXValues), our plain forms beside them under names of
    their own. Members in the order a node's JSON has them."""

    nodeId: Required[str]
    role: Required[dict[str, str]]               # {"type", "value"}; shared: never mutated
    name: Required[dict[str, str]]               # {"type", "value"}, without "sources"
    valueText: Required[str | None]
    descriptionText: Required[str | None]
    states: Required[dict[str, JSONValue]]       # STATE_PROPERTIES: booleans, "mixed" or a token
    properties: Required[list[AccessibilityAXProperty]]
    propertyValues: Required[dict[str, JSONValue]]   # OTHER_PROPERTIES' scalar values
    ignored: Required[bool]
    parentId: Required[str | None]
    childIds: Required[list[str]]
    backendDOMNodeId: Required[int | None]
    frameId: Required[str]
    value: AccessibilityAXValue                  # left out when the node has none
    description: AccessibilityAXValue
    ignoredReasons: list[AccessibilityAXProperty]
    targetId: str                                # the session whose DOM holds the node

# role and name keep CDP's AXValue shape ({"type", "value"}), as the reference API returns them,
# without the name's "sources" list (how it was computed: large, and not what clients read).
# Role objects are shared between records (few distinct roles): never mutate them.
_ROLE_TYPES = frozenset({"role", "internalRole"})
_role_values: dict[tuple[str, str], dict[str, str]] = {}
NO_NAME_TYPE = "computedString"


def role_value(kind: str, value: str) -> dict[str, str]:
    """The shared {"type", "value"} object of a role (kind: "role" or "internalRole")."""
    key = (kind, value)
    found = _role_values.get(key)
    if found is None:
        if len(_role_values) > 4096:          # page-defined role attributes: stay bounded
            _role_values.clear()
        found = _role_values[key] = {"type": kind, "value": value}
    return found


def name_value(value: str, kind: str = NO_NAME_TYPE) -> dict[str, str]:
    return {"type": kind, "value": value}


def role_of(record: Record) -> str:
    """A record's role as a plain string (its AXValue's value)."""
    return record["role"]["value"]


def _ax_value(field: AccessibilityAXValue) -> AccessibilityAXValue:
    """An AXValue as CDP gives it, without "sources" (how it was computed: large, and not what
    clients read). The reply's own object when it has none: records never mutate it."""
    if "sources" not in field:
        return field
    without = field.copy()
    del without["sources"]
    return without


# Chromium's per-line text fragments: they repeat their StaticText parent's text, have no DOM
# node of their own, and are a sixth of a text-heavy tree. Reported only when asked for
# (?inline_text_boxes=true).
INLINE_TEXT_BOX = "InlineTextBox"
DROPPED_ROLES = frozenset({INLINE_TEXT_BOX})


_STATE_NAMES = frozenset(STATE_PROPERTIES)
_OTHER_NAMES = frozenset(OTHER_PROPERTIES)
_BOOLEAN_STATES = {"true": True, "false": False}


def ax_records(nodes: Iterable[AXNode], frame_id: str, id_prefix: str = "",
               target_id: str | None = None, inline_text_boxes: bool = False) -> list[Record]:
    """Records of one frame's AX tree; ``id_prefix`` keeps ids unique across frames;
    ``target_id``, when known, is each record's "targetId" from the start;
    ``inline_text_boxes``: keep Chromium's InlineTextBox nodes (otherwise DROPPED_ROLES).

    Links to the nodes never reported (DROPPED_ROLES) are left out here, so a record is final
    when made (nothing later edits it).
    The cold path's hottest Python loop (one pass over thousands of nodes): its
    look-ups are inlined and bound to locals rather than made through small helper calls.
    """
    records: list[Record] = []
    left_out: set[str] = set()
    append = records.append
    state_names, other_names, booleans = _STATE_NAMES, _OTHER_NAMES, _BOOLEAN_STATES
    dropped = frozenset() if inline_text_boxes else DROPPED_ROLES
    role_types, shared_roles = _ROLE_TYPES, _role_values
    for node in nodes:
        role = node.get("role")
        role_text = role.get("value") if role else None
        if role_text in dropped:
            left_out.add(id_prefix + str(node["nodeId"]))
            continue
        states: dict[str, JSONValue] = {}
        plain: dict[str, JSONValue] = {}
        cdp_properties = node.get("properties") or []
        for prop in cdp_properties:
            field = prop.get("value")
            value = field.get("value") if field else None
            if isinstance(value, (list, dict)):
                continue
            property_name = prop.get("name")
            if property_name in state_names:
                states[property_name] = booleans.get(value, value) if value.__class__ is str else value
            elif property_name in other_names:
                plain[property_name] = value
        value_field = node.get("value")
        value = value_field.get("value") if value_field else None
        description_field = node.get("description")
        description = description_field.get("value") if description_field else None
        parent = node.get("parentId")
        name: AccessibilityAXValue | dict[str, str] = node.get("name") or {}
        role_kind = role.get("type") if role else None
        role_key = (role_kind if role_kind in role_types else "role", str(role_text or ""))
        role_object = shared_roles.get(role_key)
        if role_object is None:
            role_object = role_value(*role_key)
        # CDP's shapes under CDP's names (the reference contract: value, description and
        # properties as AXValues); our plain forms beside them under names of their own.
        record: Record = {
            "nodeId": id_prefix + str(node["nodeId"]),
            "role": role_object,
            "name": {"type": str(name.get("type") or NO_NAME_TYPE), "value": str(name.get("value") or "")},
            "valueText": None if value is None or value == "" else str(value),
            "descriptionText": None if not description else str(description),
            "states": states,
            "properties": cdp_properties,
            "propertyValues": plain,
            "ignored": bool(node.get("ignored", False)),
            "parentId": None if parent is None else id_prefix + str(parent),
            "childIds": [id_prefix + c for c in map(str, node.get("childIds", ()))] if id_prefix
                        else list(map(str, node.get("childIds", ()))),
            "backendDOMNodeId": node.get("backendDOMNodeId"),
            "frameId": frame_id,
        }
        # Left out when the node has none, as the reference schema's consumers expect.
        if value_field and value is not None and value != "":
            record["value"] = _ax_value(value_field)
        if description_field and description:
            record["description"] = _ax_value(description_field)
        reasons = node.get("ignoredReasons")
        if reasons:
            record["ignoredReasons"] = reasons
        if target_id is not None:
            record["targetId"] = target_id
        append(record)
    if left_out:                          # e.g. a StaticText's InlineTextBox children
        for record in records:
            child_ids = record["childIds"]
            if child_ids and not left_out.isdisjoint(child_ids):
                record["childIds"] = [c for c in child_ids if c not in left_out]
    return records


def is_interesting(record: Record) -> bool:
    return not record["ignored"] and role_of(record).lower() not in UNINTERESTING_ROLES


def has_role(roles: frozenset[str]) -> Callable[[Record], bool]:
    return lambda record: role_of(record).lower() in roles


def filter_tree(records: list[Record], keep: Callable[[Record], bool]) -> list[Record]:
    """Only the records ``keep`` accepts, each re-parented to its nearest kept ancestor.

    Walks the tree (not the list) so a kept node's children are its nearest kept descendants in
    document order. Iterative: deep pages must not hit Python's recursion limit.
    """
    by_id = {r["nodeId"]: r for r in records}
    roots = [r for r in records if r["parentId"] not in by_id]
    kept: list[Record] = []
    new_children: dict[str | None, list[str]] = {}
    seen: set[str] = set()
    # Stack of (record, nearest kept ancestor id); children pushed reversed to keep order.
    stack: list[tuple[Record, str | None]] = [(r, None) for r in reversed(roots)]
    while stack:
        record, ancestor = stack.pop()
        if record["nodeId"] in seen:
            continue                              # a malformed tree must not loop
        seen.add(record["nodeId"])
        if keep(record):
            copy = record.copy()
            copy["parentId"], copy["childIds"] = ancestor, []
            kept.append(copy)
            new_children.setdefault(ancestor, []).append(copy["nodeId"])
            ancestor = copy["nodeId"]
        for child_id in reversed(record["childIds"]):
            child = by_id.get(child_id)
            if child is not None:
                stack.append((child, ancestor))
    for record in kept:
        record["childIds"] = new_children.get(record["nodeId"], [])
    return kept


def truncate(records: list[Record], limit: int) -> list[Record]:
    """The first ``limit`` records in pre-order, with links to dropped nodes removed."""
    head = records[:limit]
    ids = {r["nodeId"] for r in head}
    result: list[Record] = []
    for record in head:
        if all(c in ids for c in record["childIds"]) and (record["parentId"] in ids or record["parentId"] is None):
            result.append(record)
        else:
            linked = record.copy()
            linked["childIds"] = [c for c in record["childIds"] if c in ids]
            linked["parentId"] = record["parentId"] if record["parentId"] in ids else None
            result.append(linked)
    return result


def preorder(records: list[Record]) -> list[Record]:
    """The same records in tree pre-order from the roots (frames follow their iframe node), with
    links to records that are not in the list removed. Records are updated in place."""
    by_id = {r["nodeId"]: r for r in records}
    ordered: list[Record] = []
    seen: set[str] = set()
    stack = [r for r in reversed(records) if r["parentId"] not in by_id]
    pop, push, visit, add = stack.pop, stack.extend, ordered.append, seen.add
    while stack:
        record = pop()
        node_id = record["nodeId"]
        if node_id in seen:
            continue                              # a malformed tree must not loop
        add(node_id)
        visit(record)
        child_ids = record["childIds"]
        if child_ids:                             # (leaves: no list to build)
            try:
                push([by_id[c] for c in reversed(child_ids)])
            except KeyError:                      # links to records not in the list: dropped
                child_ids = record["childIds"] = [c for c in child_ids if c in by_id]
                push([by_id[c] for c in reversed(child_ids)])
    for record in ordered:
        parent = record["parentId"]
        if parent is not None and parent not in by_id:
            record["parentId"] = None
    return ordered
