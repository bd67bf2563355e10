"""JSON as it crosses our HTTP and CDP seams, typed: what `json.loads` can return and what
`json.dumps` can write. Code that inspects a value narrows it (isinstance or a TypedDict);
code that only passes a value on takes `Mapping[str, object]` (a TypedDict is one) or these
names, not `Any`."""

from __future__ import annotations

from typing import TypeAlias

JSONScalar: TypeAlias = "str | int | float | bool | None"
JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"
