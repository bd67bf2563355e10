"""A small declarative field-spec language: each request model is declared once and used both to
validate requests (errors name the exact field, e.g. ``events[2].x``) and to generate the OpenAPI
schema. No runtime dependency beyond the standard library.

Query strings arrive as text, so every spec can also coerce from a string (``coerce=True``).
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

from httpapi.api_error import ApiError, invalid
from httpapi.json_types import JSONObject, JSONValue


class Missing(enum.Enum):
    """A field's default when it has none (None is a default: the field is null)."""
    MISSING = "missing"


MISSING: Final = Missing.MISSING


def join_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class Spec:
    """One value's type and constraints."""

    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONValue:
        raise NotImplementedError

    def schema(self) -> JSONObject:
        raise NotImplementedError

    def _with_doc(self, schema: JSONObject) -> JSONObject:
        if self.description:
            schema["description"] = self.description
        return schema


@dataclass
class Int(Spec):
    minimum: int | None = None
    maximum: int | None = None
    description: str = ""
    round_floats: bool = False  # coordinates: 512.4 from a scaled screenshot means pixel 512

    def validate(self, value: object, path: str, coerce: bool = False) -> int:
        if coerce and isinstance(value, str):
            try:
                value = int(value.strip(), 0)
            except ValueError:
                raise invalid(path, f"expected an integer, got {value!r}") from None
        # bool is an int subclass in Python; JSON true is not a coordinate.
        if isinstance(value, float) and math.isfinite(value) and (
                value.is_integer() or self.round_floats):
            value = int(round(value))
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(path, f"expected an integer, got {json_kind(value)}")
        _check_range(value, self.minimum, self.maximum, path)
        return value

    def schema(self) -> JSONObject:
        kind = "number" if self.round_floats else "integer"
        return self._with_doc(_ranged({"type": kind}, self.minimum, self.maximum))


@dataclass
class Number(Spec):
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> float:
        if coerce and isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise invalid(path, f"expected a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise invalid(path, f"expected a number, got {json_kind(value)}")
        value = float(value)
        if not math.isfinite(value):
            raise invalid(path, "expected a finite number")
        if self.exclusive_minimum is not None and value <= self.exclusive_minimum:
            raise invalid(path, f"must be greater than {self.exclusive_minimum:g}")
        _check_range(value, self.minimum, self.maximum, path)
        return value

    def schema(self) -> JSONObject:
        out = _ranged({"type": "number"}, self.minimum, self.maximum)
        if self.exclusive_minimum is not None:
            out["exclusiveMinimum"] = self.exclusive_minimum
        return self._with_doc(out)


@dataclass
class Bool(Spec):
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> bool:
        if coerce and isinstance(value, str):
            lowered = value.strip().lower()
            # One rule in both daemons; a bare query flag (?fresh) means true.
            if lowered in ("", "1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise invalid(path, f"expected true or false, got {value!r}")
        if not isinstance(value, bool):
            raise invalid(path, f"expected a boolean, got {json_kind(value)}")
        return value

    def schema(self) -> JSONObject:
        return self._with_doc({"type": "boolean"})


@dataclass
class Str(Spec):
    min_length: int = 0
    max_length: int | None = None
    description: str = ""
    pattern: str | None = None  # documented only; checks live in `check`
    check: Callable[[str], str | None] | None = None  # returns an error sentence or None

    def validate(self, value: object, path: str, coerce: bool = False) -> str:
        if not isinstance(value, str):
            raise invalid(path, f"expected a string, got {json_kind(value)}")
        if len(value) < self.min_length:
            raise invalid(path, "must not be empty" if self.min_length == 1
                          else f"must be at least {self.min_length} characters")
        if self.max_length is not None and len(value) > self.max_length:
            raise invalid(path, f"must be at most {self.max_length} characters")
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise invalid(path, problem)
        return value

    def schema(self) -> JSONObject:
        out: JSONObject = {"type": "string"}
        if self.min_length:
            out["minLength"] = self.min_length
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.pattern:
            out["pattern"] = self.pattern
        return self._with_doc(out)


@dataclass
class Enum(Spec):
    values: Sequence[str]
    description: str = ""
    typed: bool = True      # False: the schema lists the values alone, without "type" (responses')

    def validate(self, value: object, path: str, coerce: bool = False) -> str:
        if not isinstance(value, str) or value not in self.values:
            shown = value if isinstance(value, str) else json_kind(value)
            raise invalid(path, f"must be one of {', '.join(self.values)}; got {shown!r}")
        return value

    def schema(self) -> JSONObject:
        out: JSONObject = {"type": "string"} if self.typed else {}
        out["enum"] = [*self.values]
        names = enum_constant_names(self.values)
        if names is not None:
            out["x-enum-varnames"] = [*names]
        return self._with_doc(out)


def enum_constant_names(values: Sequence[str]) -> list[str] | None:
    """Constant names for client generators (the ``x-enum-varnames`` extension), given only when
    the values alone would name two constants alike: generators upper-case each value, so
    ``Shift`` and ``shift`` (both accepted modifiers) would clash, and openapi-python-client stops.
    The second of a kind gets ``_2``, the third ``_3``."""
    bases = [re.sub(r"[^A-Z0-9]+", "_", value.upper()).strip("_") or "VALUE" for value in values]
    if len(set(bases)) == len(bases):
        return None
    names: list[str] = []
    for base in bases:
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}_{n}"
        names.append(name)
    return names


@dataclass
class ListOf(Spec):
    item: Spec
    min_items: int = 0
    max_items: int | None = None
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> list[JSONValue]:
        if not isinstance(value, list):
            raise invalid(path, f"expected an array, got {json_kind(value)}")
        if len(value) < self.min_items:
            raise invalid(path, f"needs at least {self.min_items} item(s)")
        if self.max_items is not None and len(value) > self.max_items:
            raise invalid(path, f"takes at most {self.max_items} items")
        return [self.item.validate(v, f"{path}[{i}]", coerce) for i, v in enumerate(value)]

    def schema(self) -> JSONObject:
        out: JSONObject = {"type": "array", "items": self.item.schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        if self.max_items is not None:
            out["maxItems"] = self.max_items
        return self._with_doc(out)


@dataclass
class MapOf(Spec):
    """A JSON object with free keys whose values all follow ``value`` (e.g. an env block)."""

    value: Spec
    max_items: int | None = None
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONObject:
        if not isinstance(value, dict):
            raise invalid(path, f"expected an object, got {json_kind(value)}")
        if self.max_items is not None and len(value) > self.max_items:
            raise invalid(path, f"takes at most {self.max_items} entries")
        return {k: self.value.validate(v, join_path(path, k), coerce) for k, v in value.items()}

    def schema(self) -> JSONObject:
        return self._with_doc({"type": "object", "additionalProperties": self.value.schema()})


@dataclass
class AnyOf(Spec):
    """The first alternative whose JSON type matches wins; its error is reported otherwise."""

    options: Sequence[Spec]
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONValue:
        first_error: ApiError | None = None
        for option in self.options:
            try:
                return option.validate(value, path, coerce)
            except ApiError as exc:
                if first_error is None or _same_type(option, value):
                    first_error = exc
        raise first_error or invalid(path, "matches none of the allowed types")

    def schema(self) -> JSONObject:
        return self._with_doc({"anyOf": [o.schema() for o in self.options]})


@dataclass
class OneOf(AnyOf):
    """Exactly one alternative matches (JSON Schema's oneOf): variants that exclude each other
    with no tag field naming them (Tagged's discriminator)."""

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONValue:
        matched: list[JSONValue] = []
        for option in self.options:
            try:
                matched.append(option.validate(value, path, coerce))
            except ApiError:
                continue
        if len(matched) > 1:
            raise invalid(path, "matches more than one of the allowed types")
        return matched[0] if matched else super().validate(value, path, coerce)   # its error

    def schema(self) -> JSONObject:
        return self._with_doc({"oneOf": [o.schema() for o in self.options]})


@dataclass
class Tagged(Spec):
    """A discriminated union: the object's ``tag`` field names its variant (e.g. an ``action``).

    An unknown or missing tag is a 422 naming the tag field; otherwise the variant's own model
    validates the whole object, so its errors name the exact field. OpenAPI: ``oneOf`` with a
    discriminator, each variant declaring its tag as a ``const``."""

    tag: str
    variants: dict[str, Model]
    description: str = ""

    def validate(self, value: object, path: str = "", coerce: bool = False) -> JSONObject:
        if not isinstance(value, dict):
            raise invalid(path or "body", f"expected an object, got {json_kind(value)}")
        kind = value.get(self.tag)
        where = join_path(path, self.tag)
        if kind is None:
            raise invalid(where, "is required")
        if not isinstance(kind, str) or kind not in self.variants:
            shown = kind if isinstance(kind, str) else json_kind(kind)
            raise invalid(where, f"unknown {self.tag} {shown!r} (known: {', '.join(self.variants)})")
        return self.variants[kind].validate(value, path, coerce)

    def schema(self) -> JSONObject:
        return self._with_doc({"oneOf": [model.schema() for model in self.variants.values()],
                               "discriminator": {"propertyName": self.tag}})


def tagged_variant(tag: str, kind: str, fields: Sequence[F], *, name: str, description: str = "",
                   check: Callable[[JSONObject], tuple[str, str] | None] | None = None) -> Model:
    """One variant of a Tagged union: ``fields`` plus the required tag, whose only value is ``kind``."""
    return Model(name, [F(tag, Const(kind), required=True), *fields], description=description,
                 check=check)


@dataclass
class Const(Spec):
    """Exactly one value: a string (a discriminator's), an integer or a boolean."""

    value: str | int | bool
    description: str = ""
    typed: bool = True      # False: the schema names the value alone, without "type" (responses')

    def validate(self, value: object, path: str, coerce: bool = False) -> str | int | bool:
        if type(value) is not type(self.value) or value != self.value:     # 1 is not true
            raise invalid(path, f"must be {self.value!r}")
        return self.value

    def schema(self) -> JSONObject:
        kind = "boolean" if isinstance(self.value, bool) else "integer" if isinstance(self.value, int) else "string"
        out: JSONObject = {"type": kind} if self.typed else {}
        out["const"] = self.value
        return self._with_doc(out)


@dataclass
class Nullable(Spec):
    """``spec``'s value or null; its schema is spec's with "null" beside its type
    (``{"type": ["integer", "null"]}``), so spec must name one JSON type."""

    spec: Spec
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.spec.schema().get("type"), str):
            raise TypeError(f"Nullable needs a spec of one JSON type, not {self.spec!r}")

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONValue:
        return None if value is None else self.spec.validate(value, path, coerce)

    def schema(self) -> JSONObject:
        out = self.spec.schema()
        out["type"] = [out["type"], "null"]
        enum = out.get("enum")
        if isinstance(enum, list):
            out["enum"] = [*enum, None]      # else an enum would still refuse the null
        return self._with_doc(out)


_JSON_KINDS: dict[str, type] = {"object": dict, "array": list}


@dataclass
class Opaque(Spec):
    """A JSON value whose content the schema leaves open (a HAR log, code's return value): of
    one JSON type when ``kind`` names it (``{"type": "object"}``), else any (``{}``)."""

    kind: Literal["object", "array"] | None = None
    description: str = ""

    def validate(self, value: object, path: str, coerce: bool = False) -> JSONValue:
        if self.kind is not None and not isinstance(value, _JSON_KINDS[self.kind]):
            raise invalid(path, f"expected an {self.kind}, got {json_kind(value)}")
        return cast(JSONValue, value)     # passed on as it came: a parsed JSON value

    def schema(self) -> JSONObject:
        return self._with_doc({} if self.kind is None else {"type": self.kind})


@dataclass
class F:
    """A named field of an object model."""

    name: str
    spec: Spec
    required: bool = False
    default: JSONValue | Missing = MISSING
    description: str = ""


@dataclass
class Model(Spec):
    """A JSON object with known fields. Unknown fields are a 422: typos should not pass silently."""

    name: str
    fields: Sequence[F]
    description: str = ""
    allow_extra: bool = False
    # A cross-field check run after the fields validate: returns (field, problem) or None.
    check: Callable[[JSONObject], tuple[str, str] | None] | None = None
    _by_name: dict[str, F] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._by_name = {f.name: f for f in self.fields}

    def validate(self, value: object, path: str = "", coerce: bool = False) -> dict[str, Any]:
        # Typed loosely: the fields' types are the model's, known to a Typed pairing's TypedDict
        # (httpapi.bodies) and not to this signature; code reading an unpaired model's result
        # relies on the model having checked them.
        if not isinstance(value, dict):
            raise invalid(path or "body", f"expected an object, got {json_kind(value)}")
        if not self.allow_extra:
            for key in value:
                if key not in self._by_name:
                    known = ", ".join(self._by_name)
                    raise invalid(join_path(path, key), f"unknown field (known: {known})")
        out: JSONObject = {}
        for f in self.fields:
            where = join_path(path, f.name)
            if f.name in value and value[f.name] is not None:
                out[f.name] = f.spec.validate(value[f.name], where, coerce)
            elif f.required:
                raise invalid(where, "is required")
            elif f.default is not MISSING:
                out[f.name] = f.default
            else:
                out[f.name] = None
        if self.check is not None:
            problem = self.check(out)
            if problem:
                raise invalid(join_path(path, problem[0]), problem[1])
        return out

    def schema(self) -> JSONObject:
        props: JSONObject = {}
        for f in self.fields:
            prop = f.spec.schema()
            if not f.required:
                # validate() takes null for an optional field as "not given".
                prop = {"anyOf": [prop, {"type": "null"}]}
            if f.description:
                prop["description"] = f.description
            if f.default is not MISSING and f.default is not None:
                prop["default"] = f.default
            props[f.name] = prop
        out: JSONObject = {"type": "object", "properties": props}
        required: list[JSONValue] = [f.name for f in self.fields if f.required]
        if required:
            out["required"] = required
        if not self.allow_extra:
            out["additionalProperties"] = False
        return self._with_doc(out)

    def query_parameters(self) -> list[JSONObject]:
        """The model as OpenAPI query parameters (for GET routes)."""
        params = []
        for f in self.fields:
            schema = f.spec.schema()
            if f.default is not MISSING and f.default is not None:
                schema["default"] = f.default
            param: JSONObject = {"name": f.name, "in": "query", "required": f.required,
                                     "schema": schema}
            if isinstance(f.spec, Bool):
                param["allowEmptyValue"] = True   # ?fresh alone means true
            if f.description or f.spec.description:
                param["description"] = f.description or f.spec.description
            params.append(param)
        return params


def _check_range(value: float, minimum: float | None, maximum: float | None, path: str) -> None:
    if minimum is not None and value < minimum:
        raise invalid(path, f"must be >= {minimum:g}, got {value:g}")
    if maximum is not None and value > maximum:
        raise invalid(path, f"must be <= {maximum:g}, got {value:g}")


def _ranged(schema: JSONObject, minimum: float | None, maximum: float | None) -> JSONObject:
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def json_kind(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "integer", float: "number"}.get(type(value), type(value).__name__)


def _same_type(spec: Spec, value: object) -> bool:
    expected = {Int: (int,), Number: (int, float), Str: (str,), Enum: (str,), Bool: (bool,),
                ListOf: (list,), Model: (dict,), MapOf: (dict,), Tagged: (dict,)}.get(type(spec), ())
    return isinstance(value, expected)
