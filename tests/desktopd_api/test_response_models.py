"""Response models (httpapi.responses): the schema a route documents for its answer comes from
the same field rows as a request model's, with a response's rules (no defaults, no
additionalProperties, null only where declared), and the row that names one documents it."""

from __future__ import annotations

from typing import TypedDict

import pytest
from aiohttp import web

from httpapi.errors import ApiError
from httpapi.fields import F, Const, Enum, Int, ListOf, Nullable, OneOf, Opaque, Str
from httpapi.middlewares import error_middleware
from httpapi.openapi import operation
from httpapi.responses import ResponseModel, TypedResponse
from httpapi.routing import Route, register

RECT = ResponseModel("Rect", [F("x", Int(), required=True), F("y", Int(), required=True),
                              F("space", Const("screen", typed=False))])
WINDOW = ResponseModel("Window", [
    F("id", Int(), required=True),
    F("pid", Nullable(Int()), description="Null when the window does not say."),
    F("frame", RECT, description="With decorations."),
    F("classes", Nullable(ListOf(Str()))),
    F("state", Enum(["shown", "hidden"], typed=False)),
    F("extra", Opaque("object")),
    F("anything", Opaque(description="Any JSON.")),
], description="A window.")


def test_the_schema_is_the_rows_with_a_responses_rules() -> None:
    assert WINDOW.schema() == {
        "type": "object", "description": "A window.", "required": ["id"],
        "properties": {
            "id": {"type": "integer"},
            "pid": {"type": ["integer", "null"], "description": "Null when the window does not say."},
            "frame": {"type": "object", "required": ["x", "y"], "description": "With decorations.",
                      "properties": {"x": {"type": "integer"}, "y": {"type": "integer"},
                                     "space": {"const": "screen"}}},
            "classes": {"type": ["array", "null"], "items": {"type": "string"}},
            "state": {"enum": ["shown", "hidden"]},
            "extra": {"type": "object"},
            "anything": {"description": "Any JSON."}}}


def test_unions_constants_and_nullable_enums() -> None:
    text = ResponseModel("Text", [F("type", Const("text", typed=False)), F("text", Str())])
    image = ResponseModel("Image", [F("type", Const("image", typed=False), required=True)])
    assert OneOf([text, image]).schema() == {"oneOf": [text.schema(), image.schema()]}
    assert Const(True, typed=False).schema() == {"const": True}
    assert Const(3).schema() == {"type": "integer", "const": 3}
    assert Nullable(Enum(["a", "b"])).schema() == {"type": ["string", "null"], "enum": ["a", "b", None]}


def test_one_of_takes_exactly_one_alternative() -> None:
    either = OneOf([Int(maximum=5), Int(minimum=3)])
    assert either.validate(1, "n") == 1 and either.validate(9, "n") == 9
    for wrong, problem in [(4, "more than one"), ("x", "integer")]:
        with pytest.raises(ApiError, match=problem):
            either.validate(wrong, "n")
    with pytest.raises(ApiError):
        Const(True).validate(1, "flag")           # 1 == True in Python, not in JSON


def test_an_object_without_required_fields_lists_none() -> None:
    assert "required" not in ResponseModel("Empty", [F("n", Int())]).schema()


def test_a_response_field_has_no_default() -> None:
    with pytest.raises(TypeError, match="default"):
        ResponseModel("Bad", [F("n", Int(), default=1)])


def test_nullable_needs_one_json_type() -> None:
    with pytest.raises(TypeError, match="one JSON type"):
        Nullable(Opaque())


def test_an_answer_is_checked_against_its_model() -> None:
    answer = {"id": 3, "pid": None, "frame": {"x": 1, "y": 2}, "other": True}
    assert WINDOW.validate(answer) == answer            # fields it does not declare are kept
    for wrong, field in [({"pid": 4}, "id"), ({"id": 1, "frame": {"x": 1}}, "frame.y"),
                         ({"id": 1, "classes": ["a", 2]}, "classes[1]"),
                         ({"id": 1, "extra": []}, "extra"), ({"id": 1, "state": "gone"}, "state")]:
        with pytest.raises(ApiError) as info:
            WINDOW.validate(wrong)
        assert info.value.field == field, wrong


class Point(TypedDict):
    x: int
    y: int


POINT = TypedResponse(ResponseModel("Point", [F("x", Int(), required=True), F("y", Int(), required=True)]),
                      Point)


async def _point(request: web.Request) -> web.Response:
    return POINT.response({"x": 1, "y": 2}, status=201, headers={"X-Seen": "yes"})


async def test_a_row_documents_its_model_and_the_handler_answers_with_it(aiohttp_client) -> None:
    route = Route("POST", "/point", _point, "A point", "test", returns=POINT, success_status=201)
    documented = operation(route, {code: "error" for code in range(400, 600)})["responses"]["201"]
    assert documented["content"] == {"application/json": {"schema": POINT.model.schema()}}
    app = web.Application(middlewares=[error_middleware])
    register(app, [route])
    answer = await (await aiohttp_client(app)).post("/point")
    assert answer.status == 201 and answer.headers["X-Seen"] == "yes"
    assert POINT.model.validate(await answer.json()) == {"x": 1, "y": 2}


def test_a_row_names_its_answer_once() -> None:
    with pytest.raises(ValueError, match="returns"):
        Route("GET", "/point", _point, "A point", "test", returns=POINT,
              success={"application/json": {"schema": {"type": "object"}}})


def test_a_content_table_that_is_not_json_is_refused_where_it_is_documented() -> None:
    route = Route("GET", "/odd", _point, "Odd", "test",
                  success={"application/json": {"schema": {"enum": {"a", "b"}}}})
    with pytest.raises(TypeError, match=r"GET /odd's success.application/json.schema.enum is not JSON"):
        operation(route, {code: "error" for code in range(400, 600)})
