"""A route's rules live in its declaration (httpapi.routing.Route): its cap on requests at once,
the text media types its body may have, whether it needs a token. The app's middlewares and the
OpenAPI document are built from the same rows."""

from __future__ import annotations

import json

from desktopd.handlers.openapi import build_openapi
from desktopd.routes import ROUTES
from httpapi.routing import concurrency_limits, public_paths, text_bodies
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
