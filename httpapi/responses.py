"""Response bodies declared with the request models' field language (httpapi.fields): a route's
OpenAPI success schema is generated from its ResponseModel, and a TypedResponse pairs the model
with the TypedDict its handler builds, so the answer is typed from the same declaration.

A response schema describes what the server writes, not what it accepts: fields are absent
unless ``required``, null only where their spec is Nullable, other fields may appear beside
them, and nothing has a default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from aiohttp import web

from httpapi.api_error import invalid
from httpapi.fields import MISSING, F, Spec, join_path, json_kind
from httpapi.json_types import JSONObject, JSONValue


class Schematic(Protocol):
    """What a route's success body needs: a JSON Schema (a Spec, or a TypedResponse)."""

    def schema(self) -> JSONObject: ...


@dataclass
class ResponseModel(Spec):
    """A JSON object the server answers with: ``fields`` (F rows, as a request Model's) are
    documented as properties, those ``required`` listed as such."""

    name: str
    fields: Sequence[F]
    description: str = ""

    def __post_init__(self) -> None:
        for f in self.fields:
            if f.default is not MISSING:
                raise TypeError(f"{self.name}.{f.name}: a response field has no default")

    def validate(self, value: object, path: str = "", coerce: bool = False) -> JSONObject:
        """``value`` checked against the declaration (a test's look at a real answer): required
        fields present, declared ones of their spec, others kept as they are."""
        if not isinstance(value, dict):
            raise invalid(path or "body", f"expected an object, got {json_kind(value)}")
        out: JSONObject = dict(value)
        for f in self.fields:
            where = join_path(path, f.name)
            if f.name in value:
                out[f.name] = f.spec.validate(value[f.name], where, coerce)
            elif f.required:
                raise invalid(where, "is required")
        return out

    def schema(self) -> JSONObject:
        props: JSONObject = {}
        for f in self.fields:
            prop = f.spec.schema()
            if f.description:
                prop["description"] = f.description
            props[f.name] = prop
        out: JSONObject = {"type": "object", "properties": props}
        required: list[JSONValue] = [f.name for f in self.fields if f.required]
        if required:
            out["required"] = required
        return self._with_doc(out)


B = TypeVar("B", bound=Mapping[str, object])


@dataclass(frozen=True)
class TypedResponse(Generic[B]):
    """``model`` (which documents the answer) and ``shape``, the TypedDict the handler builds:
    tests/architecture/test_typed_responses.py checks that the TypedDict names the model's fields
    (required ones as required keys, Nullable ones as ``X | None``)."""

    model: ResponseModel
    shape: type[B]

    def schema(self) -> JSONObject:
        return self.model.schema()

    def response(self, body: B, *, status: int = 200,
                 headers: Mapping[str, str] | None = None) -> web.Response:
        """``body`` as the JSON answer the model documents."""
        return web.json_response(body, status=status, headers=headers)
