"""The sidecar's OpenAPI document: generated from the same route table and models that register
and validate its routes, so every route is in it and its rules are the validation's."""

from __future__ import annotations

import json

from sidecar.server.app import init_app
from sidecar.server.routes import OPENAPI_BODY, ROUTES
from sidecar.settings import parse_settings


def test_every_registered_route_is_documented() -> None:
    app = init_app(parse_settings(["--headless", "--port", "0"], {}))
    registered = {(route.method, route.resource.canonical) for route in app.router.routes()
                  if route.method != "HEAD"}
    spec = json.loads(OPENAPI_BODY)
    documented = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    assert registered == documented == {(route.method, route.path) for route in ROUTES}


def test_models_are_the_document() -> None:
    spec = json.loads(OPENAPI_BODY)
    navigate = spec["paths"]["/tabs/{tab_id}/navigate"]["post"]
    body = navigate["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["url"] and body["additionalProperties"] is False
    assert {"403", "404", "409", "422", "504"} <= set(navigate["responses"])
    layout = {p["name"]: p for p in spec["paths"]["/layout"]["get"]["parameters"]}
    assert set(layout) == {"tab", "interesting", "roles", "max_nodes", "fresh", "bounds", "order",
                           "inline_text_boxes"}
    assert layout["bounds"]["schema"]["enum"] == ["document", "viewport", "screen"]
    assert layout["max_nodes"]["schema"]["maximum"] == 1_000_000
    assert spec["paths"]["/health"]["get"]["security"] == []


async def test_unknown_body_fields_are_refused_like_desktopd(aiohttp_client) -> None:
    app = init_app(parse_settings(["--headless", "--port", "0"], {}))
    app.cleanup_ctx.clear()   # validation answers before any route needs Chromium
    client = await aiohttp_client(app)
    response = await client.post("/tabs/ABC/navigate", json={"url": "https://example.org/", "colour": "red"})
    body = await response.json()
    assert response.status == 422 and body["field"] == "colour", body
    response = await client.get("/layout", params={"fresh": "maybe"})
    assert response.status == 422 and (await response.json())["field"] == "fresh"
    # An optional body may be absent, but what is sent must be a JSON object: whitespace is not.
    response = await client.post("/tabs/ABC/reload", data=b"\x0c", headers={"Content-Type": "application/json"})
    assert response.status == 400 and (await response.json())["error"] == "bad_request"
    response = await client.get("/openapi.json")
    assert response.status == 200 and (await response.json())["info"]["title"] == "desktopd sidecar"
