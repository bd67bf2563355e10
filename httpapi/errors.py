"""Reading request bodies and answering errors as JSON; the error type itself is api_error.py's,
named here too, as every handler imports it."""

from __future__ import annotations

import asyncio
import json

from aiohttp import web

from .api_error import ApiError, bad_request, error_body, invalid, not_found, unavailable
from .bounded import within
from .deadlines import BODY_DEADLINE, BODY_DEADLINE_S

__all__ = ["ApiError", "MAX_JSON_DEPTH", "bad_request", "error_body", "invalid", "json_depth", "json_error",
           "not_found", "read_body", "read_json_object", "status_code_name", "unavailable"]


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
