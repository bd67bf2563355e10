"""JSON as it crosses our HTTP and CDP seams, typed: what `json.loads` can return and what
`json.dumps` can write. Code that inspects a value narrows it (isinstance or a TypedDict);
code that only passes a value on takes `Mapping[str, object]` (a TypedDict is one) or these
names, not a dynamic type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

JSONScalar: TypeAlias = "str | int | float | bool | None"
JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"


def json_value(value: object, where: str) -> JSONValue:
    """``value`` when it is JSON (a table's dict literal, say); a TypeError naming ``where`` and
    the first part that is not."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        return json_object(value, where)
    raise TypeError(f"{where} is not JSON: {type(value).__name__}")


def json_object(value: Mapping[str, object], where: str) -> JSONObject:
    """``value`` as a JSON object (see json_value); its keys must be strings."""
    out: JSONObject = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"{where} has a key that is not a string: {key!r}")
        out[key] = json_value(item, f"{where}.{key}")
    return out
