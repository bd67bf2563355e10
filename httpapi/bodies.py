"""Request bodies and query strings validated against a declarative model (httpapi.fields): 400
when a body is not a JSON object, 422 naming the field. Both daemons use these."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from httpapi.fields import Model, Spec
from httpapi.errors import invalid, read_body, read_json_object


async def json_body(request: web.Request, model: Spec) -> dict[str, Any]:
    """The body validated against ``model``: 400 when it is not a JSON object, 422 naming the field."""
    return model.validate(await read_json_object(request), "")


async def optional_json_body(request: web.Request, model: Model) -> dict[str, Any]:
    """Like json_body, but an empty body means an empty object (actions without parameters)."""
    if not request.can_read_body:
        return model.validate({})
    raw = await read_body(request)
    if not raw:   # no body at all; whitespace alone is not a JSON object (read_json_object says so)
        return model.validate({})
    return model.validate(await read_json_object(request))


def query(request: web.Request, model: Model) -> dict[str, Any]:
    params = request.query
    for name in params:
        if len(params.getall(name)) > 1:
            raise invalid(name, "given more than once")
    return model.validate(dict(params), coerce=True)
