"""OpenAPI 3.1 documents generated from a daemon's route table and its request models (the
same objects that validate requests, so a document cannot drift from the code)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from httpapi.json_types import JSONObject, JSONValue

if TYPE_CHECKING:
    from httpapi.routing import Route

ERROR_SCHEMA: JSONObject = {
    "type": "object", "required": ["error", "detail"],
    "properties": {
        "error": {"type": "string", "description": "Machine-readable code, e.g. invalid_field."},
        "detail": {"description": "Human-readable explanation (string or structure)."},
        "field": {"type": "string", "description": "422 only: the offending field, e.g. events[2].x"},
        "reason": {"type": "string", "description": "422 only, when the field is well-formed but not "
                                                    "possible now: off_screen (a point outside the screen)."},
    },
}


def _error(status: int, texts: dict[int, str]) -> JSONObject:
    return {"description": texts[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def operation_id(method: str, path: str) -> str:
    """``get_tabs_tab_id`` for GET /tabs/{tab_id}: the method and the path's words. A trailing
    slash is a word of its own (``get_cdp_json_slash`` for /cdp/json/, beside ``get_cdp_json``)
    and the root is ``root``: a route table's (method, path) pairs are distinct, and so are
    their ids unless two paths differ only in punctuation or case (build_openapi refuses that)."""
    words = re.sub(r"[^a-z0-9]+", "_", path.lower()).strip("_") or "root"
    if path.endswith("/") and path != "/":
        words += "_slash"
    return f"{method.lower()}_{words}"


def operation(route: Route, texts: dict[int, str]) -> JSONObject:
    op: JSONObject = {"summary": route.summary, "tags": [route.tag],
                          "operationId": operation_id(route.method, route.path)}
    if route.description:
        op["description"] = route.description
    params: list[JSONValue] = []
    for name in re.findall(r"{(\w+)}", route.path):
        params.append({"name": name, "in": "path", "required": True,
                       "description": route.id_description or
                                      "X window id, decimal or 0x-hex (from /api/v1/tree).",
                       "schema": {"type": "string", "pattern": route.id_pattern}})
    if route.query is not None:
        params.extend(route.query.query_parameters())
    if params:
        op["parameters"] = params
    if route.body is not None:
        content: JSONObject = {"application/json": {"schema": route.body.schema()}}
        content.update({media_type: {"schema": {"type": "string"}} for media_type in sorted(route.text_types)})
        op["requestBody"] = {"required": not route.body_optional, "content": content}
    success: JSONObject = {"description": "No Content" if route.success_status == 204 else "OK"}
    if route.success_content:
        success["content"] = route.success_content
    if route.success_headers:
        success["headers"] = {name: {"description": text, "schema": {"type": "string"}}
                              for name, text in route.success_headers.items()}
    responses: JSONObject = {str(route.success_status): success}
    codes = []
    if route.body is not None:
        codes += [400, 422]
    elif route.query is not None or "{" in route.path:
        codes.append(422)
    if not route.public:
        codes.append(401)
    if route.not_found:
        codes.append(404)
    codes.append(500)
    codes.extend(route.extra_errors)
    if route.uses_x:
        codes.append(503)
    for code in sorted(set(codes)):
        responses[str(code)] = _error(code, texts)
    if route.public:
        op["security"] = []
    op["responses"] = responses
    return op


def build_openapi(routes: Sequence[Route], *, title: str, version: str, description: str,
                  texts: dict[int, str]) -> JSONObject:
    """The OpenAPI 3.1 document of ``routes`` (either daemon's table); ``texts``: the
    description of each error status."""
    paths: dict[str, JSONObject] = {}
    owners: dict[str, str] = {}
    for route in routes:
        # OpenAPI requires unique operation ids (generated clients name functions by them): a
        # route that would repeat one is a mistake in the table, refused where the table is read.
        op_id, here = operation_id(route.method, route.path), f"{route.method} {route.path}"
        if op_id in owners:
            raise ValueError(f"operation id {op_id!r} of {here} is already {owners[op_id]}'s: "
                             "rename one path")
        owners[op_id] = here
        paths.setdefault(route.path, {})[route.method.lower()] = operation(route, texts)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version, "description": description},
        "paths": {path: operations for path, operations in paths.items()},   # as JSON values
        "components": {
            "schemas": {"Error": ERROR_SCHEMA},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "Required when DESKTOPD_TOKEN is set."}},
        },
        "security": [{"bearer": []}],
    }
