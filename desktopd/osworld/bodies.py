"""OSWorld's client sends JSON, form-encoded and multipart bodies: each read into one dict and
validated by the route's model, as desktopd's JSON bodies are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from aiohttp import web
from aiohttp.web_request import FileField

from httpapi.bodies import Typed, optional_json_body
from httpapi.errors import invalid

B = TypeVar("B", bound=Mapping[str, object])

FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


async def form_fields(request: web.Request) -> dict[str, str | bytes | bytearray | FileField]:
    """The form's fields; file parts stay aiohttp FileFields (for /setup/upload)."""
    post = await request.post()
    fields: dict[str, str | bytes | bytearray | FileField] = {}
    for name in post:
        if len(post.getall(name)) > 1:
            raise invalid(name, "given more than once")
        fields[name] = post[name]
    return fields


async def body_fields(request: web.Request, model: Typed[B]) -> B:
    """The body (JSON, or a form where the route takes one) validated against ``model``."""
    if request.content_type in FORM_TYPES:
        fields = await form_fields(request)
        for name, value in fields.items():
            if not isinstance(value, str):
                raise invalid(name, "expected a text field, got a file")
        return model.validate(fields)
    return await optional_json_body(request, model)
