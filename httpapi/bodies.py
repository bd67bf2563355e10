"""Request bodies and query strings validated against a declarative model (httpapi.fields): 400
when a body is not a JSON object, 422 naming the field. Both daemons use these.

A model paired with a TypedDict (Typed) validates to that TypedDict: the handler reads typed
fields, and tests/security/test_typed_bodies.py checks that the TypedDict names exactly the
model's fields (optional ones as ``X | None``), so the model stays the one declaration."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

from aiohttp import web

from httpapi.fields import Model, Spec, Tagged
from httpapi.json_types import JSONValue
from httpapi.errors import invalid, read_body, read_json_object

B = TypeVar("B", bound=Mapping[str, object])


@dataclass(frozen=True)
class Typed(Generic[B]):
    """``model`` (which validates and documents) and ``shape``, the TypedDict of its result."""

    model: Model
    shape: type[B]

    def validate(self, value: object, path: str = "", coerce: bool = False) -> B:
        # The shape is the model's own (checked by the test named above); validate() fills
        # every field, absent optional ones with None.
        return cast(B, self.model.validate(value, path, coerce))


@overload
async def json_body(request: web.Request, model: Typed[B]) -> B: ...
@overload
async def json_body(request: web.Request, model: Model | Tagged) -> dict[str, Any]: ...
@overload
async def json_body(request: web.Request, model: Spec) -> JSONValue: ...


async def json_body(request: web.Request, model: Spec | Typed[B]) -> object:
    """The body validated against ``model``: 400 when it is not a JSON object, 422 naming the field."""
    return model.validate(await read_json_object(request), "")


@overload
async def optional_json_body(request: web.Request, model: Typed[B]) -> B: ...
@overload
async def optional_json_body(request: web.Request, model: Model) -> dict[str, Any]: ...


async def optional_json_body(request: web.Request, model: Model | Typed[B]) -> Mapping[str, object]:
    """Like json_body, but an empty body means an empty object (actions without parameters)."""
    if not request.can_read_body:
        return model.validate({})
    raw = await read_body(request)
    if not raw:   # no body at all; whitespace alone is not a JSON object (read_json_object says so)
        return model.validate({})
    return model.validate(await read_json_object(request))


@overload
def query(request: web.Request, model: Typed[B]) -> B: ...
@overload
def query(request: web.Request, model: Model) -> dict[str, Any]: ...


def query(request: web.Request, model: Model | Typed[B]) -> Mapping[str, object]:
    params = request.query
    for name in params:
        if len(params.getall(name)) > 1:
            raise invalid(name, "given more than once")
    return model.validate(dict(params), coerce=True)
