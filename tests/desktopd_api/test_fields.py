"""The field-spec module: values, coercion from query strings, errors naming the exact field."""

from __future__ import annotations

import pytest

from httpapi.fields import F, AnyOf, Bool, Enum, Int, ListOf, MapOf, Model, Number, Str
from httpapi.errors import ApiError

ITEM = Model("Item", [F("n", Int(0, 9), required=True), F("tag", Enum(("a", "b")), default="a")])
ROOT = Model("Root", [
    F("items", ListOf(ITEM, min_items=1)),
    F("env", MapOf(Str(max_length=3))),
    F("either", AnyOf([Str(min_length=1), ListOf(Int())])),
    F("ratio", Number(maximum=1, exclusive_minimum=0)),
    F("flag", Bool(), default=False),
])


def error_field(value, model=ROOT, coerce=False) -> str:
    with pytest.raises(ApiError) as info:
        model.validate(value, coerce=coerce)
    assert info.value.status == 422
    return info.value.field


def test_valid_values_and_defaults():
    out = ROOT.validate({"items": [{"n": 3}], "env": {"K": "v"}, "either": [1, 2], "ratio": 0.5})
    assert out == {"items": [{"n": 3, "tag": "a"}], "env": {"K": "v"}, "either": [1, 2],
                   "ratio": 0.5, "flag": False}


@pytest.mark.parametrize("value, field", [
    ({"items": [{"n": 1}, {"n": 10}]}, "items[1].n"),
    ({"items": [{"n": 1, "tag": "c"}]}, "items[0].tag"),
    ({"items": [{}]}, "items[0].n"),
    ({"items": []}, "items"),
    ({"env": {"K": "long"}}, "env.K"),
    ({"either": [1, "x"]}, "either[1]"),
    ({"either": ""}, "either"),
    ({"ratio": 0}, "ratio"),
    ({"ratio": float("nan")}, "ratio"),
    ({"flag": "yes"}, "flag"),
    ({"typo": 1}, "typo"),
])
def test_errors_name_the_field(value, field):
    assert error_field(value) == field


def test_query_strings_coerce():
    query = Model("Q", [F("n", Int(0, 100)), F("on", Bool()), F("r", Number())])
    assert query.validate({"n": "0x10", "on": "true", "r": "0.25"}, coerce=True) == \
        {"n": 16, "on": True, "r": 0.25}
    assert error_field({"n": "ten"}, query, coerce=True) == "n"
    assert error_field({"on": "maybe"}, query, coerce=True) == "on"


def given(prop: dict) -> dict:
    """An optional field's schema without its null alternative (null means "not given")."""
    options = prop.get("anyOf", [])
    if len(options) == 2 and options[1] == {"type": "null"}:
        return options[0]
    return prop


def test_schema_matches_the_rules():
    schema = ROOT.schema()
    assert schema["additionalProperties"] is False
    item = given(schema["properties"]["items"])["items"]
    assert item["required"] == ["n"] and item["properties"]["n"] == {"type": "integer", "minimum": 0, "maximum": 9}
    assert given(schema["properties"]["ratio"])["exclusiveMinimum"] == 0
    assert len(given(schema["properties"]["either"])["anyOf"]) == 2


def test_optional_fields_may_be_null_as_validation_allows():
    schema = ROOT.schema()
    optional = [name for name in schema["properties"] if name not in schema.get("required", [])]
    assert optional and all(schema["properties"][name]["anyOf"][-1] == {"type": "null"} for name in optional)
    assert ROOT.validate({name: None for name in optional}) == {"items": None, "env": None, "either": None,
                                                                 "ratio": None, "flag": False}
