"""Every typed request body or query (httpapi.bodies.Typed) says what its model validates: the
TypedDict names exactly the model's fields, each with the type validation gives it, None allowed
exactly where a field may be absent without a default. The model stays the one declaration (it
validates and writes the OpenAPI document); this keeps the handlers' types honest about it."""

from __future__ import annotations

import importlib
import types
from typing import Literal, Union, get_args, get_origin, get_type_hints

import pytest

from httpapi.bodies import Typed
from httpapi.fields import Bool, Enum, F, Int, ListOf, Number, Spec, Str
from testbed.import_graph import modules

PLAIN = {Str: str, Int: int, Number: float, Bool: bool}


def typed_models() -> list[tuple[str, Typed]]:
    found = []
    for name, path in sorted(modules().items()):
        if "Typed(" not in path.read_text():
            continue
        module = importlib.import_module(name)
        found += [(f"{name}.{attr}", value) for attr, value in vars(module).items() if isinstance(value, Typed)]
    return found


def _may_be_absent(field: F) -> bool:
    return not field.required and field.default in (None, F.__dataclass_fields__["default"].default)


def _accepts(hint: object, spec: Spec) -> bool:
    """Whether the (non-None) hint is the Python type spec.validate returns."""
    if isinstance(spec, Enum):
        return get_origin(hint) is Literal and set(get_args(hint)) == set(spec.values)
    if isinstance(spec, ListOf):
        return get_origin(hint) is list and _accepts(get_args(hint)[0], spec.item)
    return PLAIN.get(type(spec)) is hint


MODELS = typed_models()


def test_the_typed_bodies_are_found() -> None:
    names = {name.rsplit(".", 1)[1] for name, _ in MODELS}
    assert {"NAVIGATE_BODY", "PLAYWRIGHT_BODY", "SNAPSHOT_QUERY", "EXECUTE_BODY"} <= names


@pytest.mark.parametrize("name, typed", MODELS, ids=[name for name, _ in MODELS])
def test_a_typed_body_is_its_model(name: str, typed: Typed) -> None:
    hints = get_type_hints(typed.shape)
    assert set(hints) == {f.name for f in typed.model.fields}
    for field in typed.model.fields:
        hint = hints[field.name]
        options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
        assert (type(None) in options) == _may_be_absent(field), f"{name}.{field.name}: None"
        rest = [option for option in options if option is not type(None)]
        if isinstance(field.spec, (Str, Int, Number, Bool, Enum, ListOf)):
            assert len(rest) == 1 and _accepts(rest[0], field.spec), f"{name}.{field.name}: {hint}"
