"""Each /act kind is declared once (sidecar/agent/kinds/): validation, the OpenAPI document, the
MCP tool and docs/agent.md's table are made from the declarations and must say the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpapi.errors import ApiError
from sidecar.agent.act_fields import ACT_COMMON
from sidecar.agent.kinds import KINDS, docs_table
from sidecar.agent.agent_requests import ACT_BODY
from sidecar.mcp.backends import Backends
from sidecar.mcp.tools import build_server
from sidecar.server.routes import OPENAPI_BODY

ROOT = Path(__file__).resolve().parents[2]
COMMON = {field.name for field in ACT_COMMON}


def test_each_kind_module_declares_the_kind_it_is_named_for() -> None:
    modules = {path.stem for path in (ROOT / "sidecar/agent/kinds").glob("*.py") if path.stem != "__init__"}
    assert modules == set(KINDS)


def test_the_docs_table_is_the_declared_one() -> None:
    text = (ROOT / "docs/agent.md").read_text()
    assert docs_table() in text, "regenerate: python -c 'from sidecar.agent.kinds import docs_table; " \
                                 "print(docs_table())'"


def test_the_openapi_document_has_each_kind_with_its_fields() -> None:
    document = json.loads(OPENAPI_BODY)
    body = document["paths"]["/act"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    variants = body.get("oneOf") or body.get("anyOf")
    assert variants is not None, body
    schemas = document.get("components", {}).get("schemas", {})
    seen = {}
    for variant in variants:
        if "$ref" in variant:
            variant = schemas[variant["$ref"].rsplit("/", 1)[1]]
        properties = variant["properties"]
        seen[properties["kind"]["const"]] = set(properties) - {"kind"}
    assert seen == {name: {field.name for field in kind.fields} | COMMON for name, kind in KINDS.items()}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_validation_takes_the_declared_fields_and_refuses_others(name: str) -> None:
    kind = KINDS[name]
    required = {field.name for field in kind.fields if field.required}
    with pytest.raises(ApiError) as caught:
        ACT_BODY.validate({"kind": name, "not_a_field": 1}, "")
    assert caught.value.status == 422
    if required:
        with pytest.raises(ApiError) as caught:
            ACT_BODY.validate({"kind": name}, "")
        assert caught.value.field in required


async def test_the_mcp_tool_offers_every_kind_and_no_stale_field() -> None:
    tools = {tool.name: tool for tool in await build_server(Backends()).list_tools()}
    act = tools["browser_act"]
    properties = act.inputSchema["properties"]
    for name in KINDS:
        assert name in properties["kind"]["enum"] and name in act.description
    declared = {field.name for kind in KINDS.values() for field in kind.fields} | COMMON
    own = set(properties) - {"kind", "options"}
    # A parameter of the tool is a field some kind declares (none left behind by a change)...
    assert own <= declared, own - declared
    # ...and a field without a parameter of its own is reachable through options.
    assert "options" in properties


def test_the_readme_row_of_post_act_names_every_kind() -> None:
    row = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `POST /act`"))
    assert [name for name in KINDS if f"`{name}`" not in row] == []
