"""The browser_* MCP tools take their parameters from the models of the routes they call: each
parameter has the bounds, type and description the sidecar's OpenAPI document gives the route's
field (they once disagreed: browser_snapshot's max_chars >= 1 against GET /snapshot's >= 500)."""

from __future__ import annotations

import json

import pytest

from sidecar.mcp.backends import Backends
from sidecar.mcp.tools import build_server
from sidecar.server.routes import OPENAPI_BODY

DOCUMENT = json.loads(OPENAPI_BODY)
# Each tool's parameters and the route (method, path) whose field each one is.
ROUTE_FIELDS: dict[str, dict[str, tuple[str, str]]] = {
    "browser_snapshot": {name: ("get", "/snapshot")
                         for name in ("tab", "interactive", "max_chars", "ref", "depth", "diff")},
    "browser_tabs": {"url": ("post", "/tabs")},
    "browser_navigate": {"url": ("post", "/tabs/{tab_id}/navigate"), "tab": ("post", "/back")},
    "browser_playwright": {name: ("post", "/playwright") for name in ("code", "timeout_s", "tab")},
}
# Parameters no route model declares: they pick the route, name a path's id, or pass fields on.
HAND_DECLARED = {"browser_tabs": {"action", "tab"}, "browser_navigate": {"go"}, "browser_act": {"options"}}
REQUIRED = {"browser_playwright": ["code"], "browser_act": ["kind"]}
# What a parameter must agree with the route on; descriptions are compared on their own.
SHAPE_KEYS = {"type", "enum", "minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength",
              "minItems", "maxItems", "required"}


def shape(schema: dict, defs: dict) -> dict:
    """``schema``'s types and bounds, nested ones included, with references resolved."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    out = {key: value for key, value in schema.items() if key in SHAPE_KEYS}
    if "items" in schema:
        out["items"] = shape(schema["items"], defs)
    if "properties" in schema:
        out["properties"] = {name: shape(value, defs) for name, value in schema["properties"].items()}
    if "anyOf" in schema:
        out["anyOf"] = [shape(option, defs) for option in schema["anyOf"]]
    return out


def value_of(schema: dict) -> tuple[dict, str | None]:
    """An optional field's schema without its null, and its description."""
    options = [option for option in schema.get("anyOf", [schema]) if option != {"type": "null"}]
    value = options[0] if len(options) == 1 else {**schema, "anyOf": options}
    return value, schema.get("description", value.get("description"))


def route_field(method: str, path: str, name: str) -> dict:
    operation = DOCUMENT["paths"][path][method]
    if "requestBody" in operation:
        return operation["requestBody"]["content"]["application/json"]["schema"]["properties"][name]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == name and p["in"] == "query"]
    return {**parameter["schema"], "description": parameter.get("description")}


async def input_schemas() -> dict[str, dict]:
    return {tool.name: tool.inputSchema for tool in await build_server(Backends()).list_tools()}


@pytest.mark.parametrize("tool", sorted(ROUTE_FIELDS))
async def test_each_parameter_is_its_routes_field(tool: str) -> None:
    schema = (await input_schemas())[tool]
    assert set(schema["properties"]) == set(ROUTE_FIELDS[tool]) | HAND_DECLARED.get(tool, set())
    assert schema.get("required", []) == REQUIRED.get(tool, [])
    for name, (method, path) in ROUTE_FIELDS[tool].items():
        given, given_description = value_of(schema["properties"][name])
        route, route_description = value_of(route_field(method, path, name))
        assert shape(given, schema.get("$defs", {})) == shape(route, {}), (tool, name)
        assert given_description == route_description, (tool, name)


async def test_browser_act_takes_each_kinds_fields_as_post_act_declares_them() -> None:
    """A parameter several kinds take admits what each of them admits (text: type's up to
    100000 characters and wait's non-empty ones), with each kind's description."""
    schema = (await input_schemas())["browser_act"]
    defs = schema.get("$defs", {})
    body = DOCUMENT["paths"]["/act"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    variants = {variant["properties"]["kind"]["const"]: variant["properties"] for variant in body["oneOf"]}
    assert schema["properties"]["kind"]["enum"] == list(variants)
    assert schema.get("required") == REQUIRED["browser_act"]
    for name, parameter in schema["properties"].items():
        if name in HAND_DECLARED["browser_act"] | {"kind"}:
            continue
        given, description = value_of(parameter)
        taken_by = {kind: fields[name] for kind, fields in variants.items() if name in fields}
        assert taken_by, f"{name} is a field of no kind"
        for kind, field in taken_by.items():
            route, route_description = value_of(field)
            expected, actual = shape(route, {}), shape(given, defs)
            if expected != actual:      # a string some other kind bounds differently: wider here
                assert actual["type"] == expected["type"] == "string", (kind, name)
                assert actual.get("minLength", 0) <= expected.get("minLength", 0), (kind, name)
                assert actual.get("maxLength", 1 << 62) >= expected.get("maxLength", 1 << 62), (kind, name)
            # A field every kind takes is described once, without the kinds' names.
            assert kind in description or len(taken_by) == len(variants), (kind, name)
            assert (route_description or "") in description, (kind, name)


async def test_browser_act_sends_its_arguments_as_post_acts_json_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nested parameters (fill's fields) reach the route as plain JSON, options merged in, and a
    value outside the kinds' declarations is refused before any call."""
    backends = Backends()
    sent: list[object] = []

    async def act(body: dict) -> dict:
        sent.append(body)
        return {}
    monkeypatch.setattr(backends.client, "act", act)
    server = build_server(backends)
    await server.call_tool("browser_act", {"kind": "fill", "options": {"timeout": 3},
                                           "fields": [{"ref": "e1", "value": True}, {"ref": "e2", "value": ["a"]}]})
    assert json.loads(json.dumps(sent)) == [{"kind": "fill", "timeout": 3, "fields": [
        {"ref": "e1", "value": True}, {"ref": "e2", "value": ["a"]}]}]
    for refused in ({"kind": "fly"}, {"kind": "fill", "fields": []}, {"kind": "click", "ref": "e1" * 20}):
        with pytest.raises(Exception, match="validation error"):
            await server.call_tool("browser_act", refused)
    assert len(sent) == 1
