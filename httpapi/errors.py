"""The one JSON error type of the HTTP APIs: ``{"error": ..., "detail": ...}``."""

from __future__ import annotations

import asyncio
import json

from aiohttp import web

from .bounded import within
from .deadlines import BODY_DEADLINE, BODY_DEADLINE_S


class ApiError(Exception):
    """An error a handler wants the client to see, with its HTTP status.

    ``error`` is a short machine-readable code; ``detail`` is a human sentence or a structure
    (for validation errors, ``field`` names the offending request field).
    """

    def __init__(self, status: int, error: str, detail: object = None, *, field: str | None = None,
                 headers: dict[str, str] | None = None, extra: dict[str, object] | None = None) -> None:
        super().__init__(f"{status} {error}: {detail}")
        self.status = status
        self.error = error
        self.detail = detail
        self.field = field
        self.headers = headers or {}
        # Members a route's own contract adds to its error bodies (e.g. /layout's "tabs": []).
        self.extra = extra or {}

    def body(self) -> dict[str, object]:
        body = error_body(self.error, self.detail)
        if self.field is not None:
            body["field"] = self.field
        body.update(self.extra)
        return body


def bad_request(detail: object) -> ApiError:
    return ApiError(400, "bad_request", detail)


def invalid(field: str, detail: str) -> ApiError:
    """422 for a request that parsed but whose ``field`` is wrong."""
    return ApiError(422, "invalid_field", f"{field}: {detail}", field=field)


def not_found(detail: object) -> ApiError:
    return ApiError(404, "not_found", detail)


def unavailable(detail: object, *, retry_after: int | None = None) -> ApiError:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return ApiError(503, "unavailable", detail, headers=headers)


def error_body(error: str, detail: object = None) -> dict[str, object]:
    return {"error": error, "detail": detail}


def status_code_name(reason: str) -> str:
    """An HTTP reason phrase as an error code: "Request Entity Too Large" -> request_entity_too_large."""
    return reason.lower().replace(" ", "_")


def json_error(status: int, error: str, detail: object = None, *,
               headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(error_body(error, detail), status=status, headers=headers)


async def read_body(request: web.Request) -> bytes:
    """The raw body, or a 408 when the client does not send it within BODY_DEADLINE_S."""
    deadline = request.app.get(BODY_DEADLINE, BODY_DEADLINE_S)
    try:
        return await within(request.read(), deadline)
    except asyncio.TimeoutError:
        raise ApiError(408, "request_timeout",
                       f"the request body did not arrive within {deadline:g} s") from None


async def read_json_object(request: web.Request) -> dict[str, object]:
    """The request body as a JSON object, or a 400 that says what is wrong with it."""
    raw = await read_body(request)
    if not raw:
        raise bad_request("request body is empty; expected a JSON object")
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad_request(f"malformed JSON: {exc}") from None
    except RecursionError:
        raise bad_request(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    if not isinstance(body, dict):
        raise bad_request(f"expected a JSON object, got {type(body).__name__}")
    if json_depth(body) > MAX_JSON_DEPTH:
        raise bad_request(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return body


# No request of ours nests more than a few levels; validators walk bodies recursively.
MAX_JSON_DEPTH = 32


def json_depth(value: object) -> int:
    """How deeply ``value`` nests lists and objects (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest
