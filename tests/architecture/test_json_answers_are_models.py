"""A JSON answer is declared by a model (``returns=``: a ResponseModel, TypedResponse or Spec),
never by a hand-written JSON Schema dict under ``success={"application/json": ...}`` (issue 43):
the model is the one declaration the OpenAPI document and the handlers' TypedDicts follow.

``success=`` stays for answers of other media types (PNG, MP4, NDJSON, text); a row that answers
JSON beside another media type is an exception, listed below with its reason."""

from __future__ import annotations

from collections.abc import Iterable

from desktopd.osworld.routes import ROUTES as OSWORLD_ROUTES
from desktopd.routes import ROUTES as DESKTOPD_ROUTES
from httpapi.routing import Route
from sidecar.server.routes import ROUTES as SIDECAR_ROUTES

JSON = "application/json"

# "<service> <METHOD> <path>": why the row keeps its JSON answer under success=.
EXCEPTIONS = {
    # Text by default, a JSON object with format=json: returns= documents a JSON answer alone.
    "sidecar GET /snapshot": "answers text/plain or JSON by its query",
}


SERVICES = {"desktopd": DESKTOPD_ROUTES, "osworld": OSWORLD_ROUTES, "sidecar": SIDECAR_ROUTES}


def hand_written_json(service: str, routes: Iterable[Route]) -> list[str]:
    """The rows of ``routes`` whose JSON answer is a success= dict (their keys)."""
    return [f"{service} {route.key}" for route in routes
            if route.success is not None and JSON in route.success]


def test_every_json_answer_is_declared_by_a_model() -> None:
    found = [key for service, routes in SERVICES.items()
             for key in hand_written_json(service, routes)]
    assert sorted(set(found) - set(EXCEPTIONS)) == [], \
        "declare the answer as a ResponseModel and pass it as returns= (httpapi/responses.py)"


def test_every_exception_is_still_a_hand_written_row() -> None:
    found = {key for service, routes in SERVICES.items()
             for key in hand_written_json(service, routes)}
    assert sorted(set(EXCEPTIONS) - found) == [], "drop the exceptions that no longer apply"


async def _answer(request: object) -> None:
    raise AssertionError("never called")


def test_a_hand_written_json_schema_is_named() -> None:
    rows = [Route("GET", "/a", _answer, "A", "test", success={JSON: {"schema": {"type": "object"}}}),
            Route("GET", "/b", _answer, "B", "test", success={"image/png": {"schema": {"type": "string"}}}),
            Route("GET", "/c", _answer, "C", "test")]
    assert hand_written_json("test", rows) == ["test GET /a"]
