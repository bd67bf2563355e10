"""A route declared once: registered on the app and described in the service's OpenAPI document
(desktopd and the sidecar both declare theirs this way)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Never, TypedDict, TypeVar, cast, overload

from aiohttp import web

from httpapi.bodies import Typed, json_body, optional_json_body, query
from httpapi.fields import Model, Spec
from httpapi.json_types import JSONObject, json_object
from httpapi.responses import Schematic

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
OBJ: JSONObject = {"type": "object"}
Q = TypeVar("Q", bound=Mapping[str, object])


class ParsingHandler:
    """A handler that gets its request's query or body parsed by a model (QueryHandler,
    BodyHandler): whatever its parsed type, ``bound()`` is what the app runs."""

    def bound(self) -> Handler:
        raise NotImplementedError


@dataclass(frozen=True)
class QueryHandler(ParsingHandler, Generic[Q]):
    """A handler given its query already parsed by the model that documents it: the route takes
    the model from here (named once), and the handler never reads request.query itself."""
    model: Model
    handle: Callable[[web.Request, Q], Awaitable[web.StreamResponse]]

    def bound(self) -> Handler:
        model = self.model

        async def parsed(request: web.Request) -> web.StreamResponse:
            # Q is the model's TypedDict (with_query's overloads pair them; tests/security checks
            # the TypedDict against the model) or the unpaired model's dict.
            return await self.handle(request, cast(Q, query(request, model)))
        return parsed


@dataclass(frozen=True)
class BodyHandler(ParsingHandler, Generic[Q]):
    """A handler given its JSON body already validated by the model that documents it (as
    QueryHandler for a query): 400 when the body is not a JSON object, 422 naming the field."""
    spec: Spec
    handle: Callable[[web.Request, Q], Awaitable[web.StreamResponse]]
    optional: bool = False      # no body at all means an empty object (spec is then a Model)

    def bound(self) -> Handler:
        spec = self.spec
        # Q: as in QueryHandler. The reader is chosen once, not per request.
        if self.optional and isinstance(spec, Model):     # with_body admits no other optional spec
            model = spec

            async def optional(request: web.Request) -> web.StreamResponse:
                return await self.handle(request, cast(Q, await optional_json_body(request, model)))
            return optional

        async def required(request: web.Request) -> web.StreamResponse:
            return await self.handle(request, cast(Q, await json_body(request, spec)))
        return required

    @property
    def documented(self) -> Spec | None:
        """The body the document describes: none for an optional body without fields."""
        spec = self.spec
        return None if self.optional and isinstance(spec, Model) and not spec.fields else spec


@overload
def with_body(model: Typed[Q], handle: Callable[[web.Request, Q], Awaitable[web.StreamResponse]], *,
              optional: bool = False) -> BodyHandler[Q]: ...
@overload
def with_body(model: Spec, handle: Callable[[web.Request, JSONObject], Awaitable[web.StreamResponse]], *,
              optional: bool = False) -> BodyHandler[JSONObject]: ...


def with_body(model: Typed[Q] | Spec, handle: Callable[[web.Request, Never], Awaitable[web.StreamResponse]], *,
              optional: bool = False) -> ParsingHandler:
    # A handler of any parameter type is a Callable[[Request, Never], ...]; the overloads say which.
    """``handle(request, body)`` with body the model's validation of the request's JSON object
    (the model's TypedDict when it has one); ``optional``: an absent body is an empty object."""
    spec = model.model if isinstance(model, Typed) else model
    if optional and not isinstance(spec, Model):
        raise TypeError("an optional body is an object model (an absent body validates as {})")
    return BodyHandler(spec, handle, optional)


@overload
def with_query(model: Typed[Q], handle: Callable[[web.Request, Q], Awaitable[web.StreamResponse]]
               ) -> QueryHandler[Q]: ...
@overload
def with_query(model: Model, handle: Callable[[web.Request, JSONObject], Awaitable[web.StreamResponse]]
               ) -> QueryHandler[JSONObject]: ...


def with_query(model: Typed[Q] | Model, handle: Callable[[web.Request, Never], Awaitable[web.StreamResponse]]
               ) -> ParsingHandler:
    """``handle(request, params)`` with params the model's validation of the query string (the
    model's TypedDict when it has one)."""
    return QueryHandler(model.model if isinstance(model, Typed) else model, handle)


class ErrorOptions(TypedDict, total=False):
    """The error fields several rows share, splatted into each (``Route(..., **COMMON)``)."""
    not_found: bool
    id_description: str
    id_pattern: str
    extra_errors: tuple[int, ...]


class RouteOptions(ErrorOptions, total=False):
    """Shared fields of rows that also share their tag and description."""
    tag: str
    description: str


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler | ParsingHandler
    summary: str
    tag: str
    query: Model | None = None
    body: Spec | None = None
    body_optional: bool = False
    uses_x: bool = True          # may answer 503 (desktopd: the X display; sidecar: Chromium)
    public: bool = False
    not_found: bool = False
    success_status: int = 200
    # The JSON answer's model (a ResponseModel, TypedResponse or other Spec); else ``success``
    # gives the content by media type ({} for none), else the answer is some JSON object.
    returns: Schematic | None = None
    success: Mapping[str, object] | None = None
    success_headers: dict[str, str] = field(default_factory=dict)
    description: str = ""
    id_description: str = ""  # the {id} path parameter, when it is not an X window id
    # What the path parameter looks like (default: an X window id, nonzero, decimal or 0x-hex).
    id_pattern: str = r"^([1-9][0-9]{0,8}|0[xX]0*[1-9a-fA-F][0-9a-fA-F]{0,7})$"
    extra_errors: tuple[int, ...] = ()
    concurrency: int | None = None   # at most this many requests of the route at once (429 beyond)
    # Media types the route's body may have besides JSON (the guard admits them for this route
    # alone, e.g. PUT, which no page sends cross-origin without a preflight; OpenAPI lists them).
    text_types: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.returns is not None and self.success is not None:
            raise ValueError(f"{self.key}: the JSON answer is its model's (returns) or success's")
        if isinstance(self.handler, QueryHandler):
            if self.query is not None and self.query is not self.handler.model:
                raise ValueError(f"{self.key}: the query model is its handler's (with_query)")
            object.__setattr__(self, "query", self.handler.model)
        if isinstance(self.handler, BodyHandler):
            if self.body is not None or self.body_optional:
                raise ValueError(f"{self.key}: the body model is its handler's (with_body)")
            object.__setattr__(self, "body", self.handler.documented)
            object.__setattr__(self, "body_optional", self.handler.optional)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def success_content(self) -> JSONObject:
        """The success answer's content by media type, as the document lists it."""
        if self.success is not None:
            return json_object(self.success, f"{self.key}'s success")
        return {"application/json": {"schema": OBJ if self.returns is None else self.returns.schema()}}

    @property
    def endpoint(self) -> Handler:
        """What the app runs for the route."""
        if isinstance(self.handler, ParsingHandler):
            return self.handler.bound()
        return self.handler


def concurrency_limits(routes: Iterable[Route]) -> dict[str, int]:
    """Each route's own cap on requests at once, keyed as httpapi.lifetime.Limits reads them."""
    return {route.key: route.concurrency for route in routes if route.concurrency is not None}


def text_bodies(routes: Iterable[Route]) -> dict[tuple[str, str], frozenset[str]]:
    """The routes that take a text body, with its media types (httpapi.guard's exemptions)."""
    return {(route.method, route.path): route.text_types for route in routes if route.text_types}


def public_paths(routes: Iterable[Route]) -> tuple[str, ...]:
    """The paths that need no token."""
    return tuple(route.path for route in routes if route.public)



def register(app: web.Application, routes: list[Route], *, head: bool = False) -> None:
    """``head``: every GET route also answers HEAD (the GET's status and headers, no body), as a
    Flask server's do: OSWorld's clients probe its API with HEAD."""
    for route in routes:
        endpoint = route.endpoint
        app.router.add_route(route.method, route.path, endpoint)
        if head and route.method == "GET":
            app.router.add_route("HEAD", route.path, endpoint)
