"""A route's rules live in its declaration (httpapi.routing.Route): its cap on requests at once,
the text media types its body may have, whether it needs a token. The app's middlewares and the
OpenAPI document are built from the same rows."""

from __future__ import annotations

import json
from typing import TypedDict

import pytest
from aiohttp import web

from desktopd.meta.openapi import build_openapi
from desktopd.routes import ROUTES
from httpapi.bodies import Typed
from httpapi.fields import F, Int, Model, Str
from httpapi.middlewares import error_middleware
from httpapi.routing import Route, concurrency_limits, public_paths, register, text_bodies, with_query
from sidecar.server.routes import OPENAPI_BODY as SIDECAR_OPENAPI
from sidecar.server.routes import ROUTES as SIDECAR_ROUTES


def test_the_caps_text_bodies_and_public_paths_come_from_the_rows() -> None:
    limits = concurrency_limits(ROUTES)
    assert limits["GET /api/v1/screenshot"] == 16 and limits["POST /api/v1/execute"] == 16
    assert {limits[f"{m} /api/v1/vision/{p}"] for m, p in (("GET", "text"), ("POST", "click"),
                                                          ("POST", "fill"), ("POST", "act"))} == {4}
    assert limits["GET /api/v1/demonstration/actions"] == 8
    assert text_bodies(ROUTES) == {("PUT", "/api/v1/clipboard"): frozenset({"text/plain"})}
    assert public_paths(ROUTES) == ("/health",)
    assert concurrency_limits(SIDECAR_ROUTES) == {"GET /layout": 24, "GET /": 24, "POST /playwright": 4}
    assert public_paths(SIDECAR_ROUTES) == ("/health",)


def test_the_document_lists_every_media_type_a_body_may_have() -> None:
    spec = build_openapi(ROUTES)
    clipboard = spec["paths"]["/api/v1/clipboard"]["put"]["requestBody"]["content"]
    assert set(clipboard) == {"application/json", "text/plain"}
    sidecar = json.loads(SIDECAR_OPENAPI)
    for path, operations in [*spec["paths"].items(), *sidecar["paths"].items()]:
        for method, operation in operations.items():
            if "requestBody" in operation and (method.upper(), path) != ("PUT", "/api/v1/clipboard"):
                assert set(operation["requestBody"]["content"]) == {"application/json"}, (method, path)


class CountQuery(TypedDict):
    count: int
    label: str | None


COUNT_QUERY = Typed(Model("CountQuery", [F("count", Int(1, 9), default=1), F("label", Str(max_length=5))]),
                    CountQuery)


async def _counted(request: web.Request, params: CountQuery) -> web.Response:
    return web.json_response({"count": params["count"], "label": params["label"]})


async def test_a_handler_gets_its_query_parsed_by_the_model_its_row_names_once(aiohttp_client) -> None:
    route = Route("GET", "/counted", with_query(COUNT_QUERY, _counted), "Counted", "test")
    assert route.query is COUNT_QUERY.model      # the document's parameters: the same model
    app = web.Application(middlewares=[error_middleware])
    register(app, [route])
    client = await aiohttp_client(app)
    answer = await client.get("/counted", params={"count": "3"})
    assert answer.status == 200 and await answer.json() == {"count": 3, "label": None}
    refused = await client.get("/counted", params={"count": "12"})
    body = await refused.json()
    assert refused.status == 422 and body["field"] == "count", body
    twice = await client.get("/counted?label=a&label=b")
    assert twice.status == 422 and (await twice.json())["field"] == "label"


def test_a_row_cannot_name_a_second_query_model_beside_its_handlers() -> None:
    with pytest.raises(ValueError, match="with_query"):
        Route("GET", "/counted", with_query(COUNT_QUERY, _counted), "Counted", "test",
              query=Model("Other", [F("count", Int())]))
