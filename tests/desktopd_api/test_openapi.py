"""/api/v1/openapi.json describes every route, and every documented route exists."""

from __future__ import annotations

import re

import pytest

from desktopd.routes import ROUTES
from tests.desktopd_api.test_fields import given


@pytest.fixture
async def spec(client):
    resp = await client.get("/api/v1/openapi.json")
    assert resp.status == 200
    return await resp.json()


def app_routes(client) -> set[tuple[str, str]]:
    out = set()
    for route in client.server.app.router.routes():
        info = route.resource.get_info()
        path = info.get("path") or info.get("formatter")
        if route.method != "HEAD":
            out.add((route.method.lower(), path))
    return out


async def test_every_route_documented_and_every_documented_route_exists(client, spec):
    assert spec["openapi"].startswith("3.1")
    documented = {(method, path) for path, ops in spec["paths"].items() for method in ops}
    assert documented == app_routes(client)
    assert len(documented) == len(ROUTES)


def walk_refs(node, refs):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                refs.append(value)
            walk_refs(value, refs)
    elif isinstance(node, list):
        for value in node:
            walk_refs(value, refs)


async def test_document_is_well_formed(spec):
    refs: list[str] = []
    walk_refs(spec, refs)
    for ref in refs:
        name = re.fullmatch(r"#/components/schemas/(\w+)", ref).group(1)
        assert name in spec["components"]["schemas"]
    op_ids = []
    for path, ops in spec["paths"].items():
        path_params = set(re.findall(r"{(\w+)}", path))
        for method, op in ops.items():
            op_ids.append(op["operationId"])
            assert op["responses"], (method, path)
            for status in op["responses"]:
                assert re.fullmatch(r"[1-5]\d\d", status)
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert declared == path_params, (method, path)
            if method in ("post", "put") and "requestBody" in op:
                assert "400" in op["responses"] and "422" in op["responses"]
    assert len(op_ids) == len(set(op_ids))


async def test_schema_comes_from_the_validating_models(spec):
    tablet = spec["paths"]["/api/v1/tablet"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    event = tablet["anyOf"][0]
    assert "drag" in given(event["properties"]["action"])["enum"]
    assert event["additionalProperties"] is False
    shot = {p["name"]: p for p in spec["paths"]["/api/v1/screenshot"]["get"]["parameters"]}
    assert shot["format"]["schema"]["enum"] == ["png", "jpeg", "webp", "raw"]
    assert "X-Scale" in spec["paths"]["/api/v1/screenshot"]["get"]["responses"]["200"]["headers"]
    execute = spec["paths"]["/api/v1/execute"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert given(execute["properties"]["timeout"])["maximum"] == 600
    assert spec["paths"]["/health"]["get"]["security"] == []
