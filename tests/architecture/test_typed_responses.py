"""Every typed response (httpapi.responses.TypedResponse) says what its model documents: the
TypedDict names exactly the model's fields, those the model requires as required keys, None
allowed exactly where the field is Nullable, scalars of the type the spec names. The model stays
the one declaration (it writes the OpenAPI document); this keeps the handlers' answers honest."""

from __future__ import annotations

import importlib
import types
from typing import Literal, NotRequired, Required, TypedDict, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from httpapi.fields import Bool, Const, Enum, F, Int, ListOf, Nullable, Number, Spec, Str
from httpapi.responses import ResponseModel, TypedResponse
from testbed.import_graph import modules

PLAIN = {Str: str, Int: int, Number: float, Bool: bool}


def typed_responses() -> list[tuple[str, TypedResponse]]:
    found = []
    for name, path in sorted(modules().items()):
        if "TypedResponse(" not in path.read_text():
            continue
        module = importlib.import_module(name)
        found += [(f"{name}.{attr}", value) for attr, value in vars(module).items()
                  if isinstance(value, TypedResponse)]
    return found


def _options(hint: object) -> tuple[object, ...]:
    return get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)


def _required_keys(shape: type) -> set[str]:
    """Read from the hints: Python 3.11 leaves Required/NotRequired out of __required_keys__ when
    the annotations are strings (``from __future__ import annotations``)."""
    total = shape.__total__                         # type: ignore[attr-defined]
    marked = {name: get_origin(hint) for name, hint in get_type_hints(shape, include_extras=True).items()}
    return {name for name, origin in marked.items()
            if origin is Required or (total and origin is not NotRequired)}


def _problems(shape: type, model: ResponseModel, where: str) -> list[str]:
    hints = get_type_hints(shape)
    required = _required_keys(shape)
    problems = [f"{where}: keys {sorted(hints)} are not the fields {[f.name for f in model.fields]}"
                ] if set(hints) != {f.name for f in model.fields} else []
    for field in model.fields:
        if field.name in hints:
            problems += _field_problems(field, hints[field.name], field.name in required,
                                        f"{where}.{field.name}")
    return problems


def _field_problems(field: F, hint: object, required: bool, where: str) -> list[str]:
    problems = []
    if field.required and not required:
        problems.append(f"{where}: required by the model, not by the TypedDict")
    spec = field.spec
    options = _options(hint)
    if (type(None) in options) != isinstance(spec, Nullable):
        problems.append(f"{where}: None in {hint} but the spec is {type(spec).__name__}")
    rest = [option for option in options if option is not type(None)]
    inner = spec.spec if isinstance(spec, Nullable) else spec
    if len(rest) != 1 or not _accepts(rest[0], inner, where, problems):
        problems.append(f"{where}: {hint} is not what {type(inner).__name__} documents")
    return problems


def _accepts(hint: object, spec: Spec, where: str, problems: list[str]) -> bool:
    if isinstance(spec, Enum):
        return get_origin(hint) is Literal and set(get_args(hint)) == set(spec.values)
    if isinstance(spec, Const):
        return get_origin(hint) is Literal and get_args(hint) == (spec.value,)
    if isinstance(spec, ListOf):
        return get_origin(hint) is list and _accepts(get_args(hint)[0], spec.item, f"{where}[]", problems)
    if isinstance(spec, ResponseModel):
        if not (isinstance(hint, type) and is_typeddict(hint)):
            return False
        problems += _problems(hint, spec, where)
        return True
    if type(spec) in PLAIN:
        return PLAIN[type(spec)] is hint
    return True              # Opaque and the like: what the handler passes on is not described


RESPONSES = typed_responses()


def test_the_typed_responses_are_found() -> None:
    names = {name.rsplit(".", 1)[1] for name, _ in RESPONSES}
    assert {"SETTLE_RESULT", "PROFILES_RESULT"} <= names


@pytest.mark.parametrize("name, typed", RESPONSES, ids=[name for name, _ in RESPONSES])
def test_a_typed_response_is_its_model(name: str, typed: TypedResponse) -> None:
    assert _problems(typed.shape, typed.model, name) == []


class Mismatched(TypedDict):
    x: NotRequired[str]
    y: int | None
    z: int


def test_a_typed_dict_that_is_not_its_model_is_named() -> None:
    model = ResponseModel("P", [F("x", Int(), required=True), F("y", Int())])
    problems = _problems(Mismatched, model, "P")
    assert [p.split(":")[0] for p in problems] == ["P", "P.x", "P.x", "P.y"], problems
