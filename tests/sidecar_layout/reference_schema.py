"""The original system's /layout contract, as a test fixture: the constraints of its
layout_schema.jsonc (Mashiro-Ethereal/vlm-grounding, image/layout_schema.jsonc), restated here in
our own words. Every /layout answer of ours must satisfy it, beside our own layout_schema.jsonc:
existing clients of the original read our answers unchanged.

Only constraints are restated (types, required members, enums, the oneOf of a tab's layout);
descriptions are left out. The original allows additional members everywhere, so ours may sit
beside its members.
"""

from __future__ import annotations

from typing import Any

NUMBER = {"type": "number"}
STRING = {"type": "string"}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}


def _rect(*names: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: NUMBER for name in names}, "required": list(names)}


AX_VALUE_TYPES = ["boolean", "tristate", "booleanOrUndefined", "idref", "idrefList", "integer",
                  "node", "nodeList", "number", "string", "computedString", "token", "tokenList",
                  "domRelation", "role", "internalRole", "valueUndefined"]

REFERENCE_LAYOUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"error": STRING, "tabs": {"type": "array", "items": {"$ref": "#/$defs/Tab"}}},
    "required": ["tabs"],
    "$defs": {
        "Tab": {
            "type": "object",
            "properties": {
                "id": STRING, "url": STRING, "title": STRING,
                "layout": {"oneOf": [{"$ref": "#/$defs/AccessibilityTree"},
                                     {"$ref": "#/$defs/DOMTree"},
                                     {"$ref": "#/$defs/LayoutError"}]},
            },
            "required": ["id", "url", "title", "layout"],
        },
        "LayoutError": {"type": "object", "properties": {"error": STRING}, "required": ["error"]},
        "AccessibilityTree": {
            "type": "object",
            "properties": {"nodes": {"type": "array", "items": {"$ref": "#/$defs/AXNode"}},
                           "viewport": {"$ref": "#/$defs/Viewport"}},
            "required": ["nodes"],
        },
        "Viewport": {
            "type": "object",
            "properties": {
                "visualViewport": _rect("x", "y", "width", "height", "scale"),
                "layoutViewport": _rect("x", "y", "width", "height"),
                "contentSize": _rect("width", "height"),
            },
        },
        "Bounds": {
            "type": "object",
            "properties": {"x": NUMBER, "y": NUMBER, "width": NUMBER, "height": NUMBER,
                           "borderBox": _rect("x", "y", "width", "height")},
            "required": ["x", "y", "width", "height"],
        },
        "AXNode": {
            "type": "object",
            "properties": {
                "nodeId": STRING,
                "ignored": BOOLEAN,
                "ignoredReasons": {"type": "array", "items": {"$ref": "#/$defs/AXProperty"}},
                "role": {"$ref": "#/$defs/AXValue"},
                "chromeRole": {"$ref": "#/$defs/AXValue"},
                "name": {"$ref": "#/$defs/AXValue"},
                "description": {"$ref": "#/$defs/AXValue"},
                "value": {"$ref": "#/$defs/AXValue"},
                "properties": {"type": "array", "items": {"$ref": "#/$defs/AXProperty"}},
                "parentId": STRING,
                "childIds": {"type": "array", "items": STRING},
                "backendDOMNodeId": INTEGER,
                "frameId": STRING,
                "bounds": {"$ref": "#/$defs/Bounds"},
            },
            "required": ["nodeId"],
        },
        "AXValue": {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": AX_VALUE_TYPES},
                "value": {},
                "relatedNodes": {"type": "array", "items": {"$ref": "#/$defs/AXRelatedNode"}},
                "sources": {"type": "array", "items": {"$ref": "#/$defs/AXValueSource"}},
            },
            "required": ["type"],
        },
        "AXProperty": {
            "type": "object",
            "properties": {"name": STRING, "value": {"$ref": "#/$defs/AXValue"}},
            "required": ["name", "value"],
        },
        "AXRelatedNode": {
            "type": "object",
            "properties": {"backendDOMNodeId": INTEGER, "idref": STRING, "text": STRING},
        },
        "AXValueSource": {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["attribute", "implicit", "style", "contents",
                                                    "placeholder", "relatedElement"]},
                "value": {"$ref": "#/$defs/AXValue"},
                "attribute": STRING,
                "attributeValue": {"$ref": "#/$defs/AXValue"},
                "superseded": BOOLEAN,
                "nativeSource": STRING,
                "nativeSourceValue": {"$ref": "#/$defs/AXValue"},
                "invalid": BOOLEAN,
                "invalidReason": STRING,
            },
            "required": ["type"],
        },
        # The DOM fallback of the original (DOM.getDocument's tree); ours never sends it (our
        # fallback keeps the node list), but a layout must not match it by accident either:
        # the oneOf above needs exactly one branch.
        "DOMTree": {
            "type": "object",
            "properties": {"root": {"type": "object"}, "viewport": {"$ref": "#/$defs/Viewport"}},
            "required": ["root"],
        },
    },
}


def validate_reference(body: Any) -> None:
    """Raise jsonschema.ValidationError unless ``body`` satisfies the original contract. An
    in-process layout is validated in its JSON form: what a client receives."""
    import json

    import jsonschema

    from sidecar.layout.output.encoding import dumps

    jsonschema.Draft202012Validator(REFERENCE_LAYOUT_SCHEMA).validate(json.loads(dumps(body)))
