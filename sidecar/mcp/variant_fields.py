"""One model of every field a discriminated union's variants take, for a tool that takes any
variant through one set of parameters (browser_act: POST /act's kinds). A field is required
only when every variant requires it (the tag); its description says which variants take it."""

from __future__ import annotations

from collections.abc import Sequence

from httpapi.fields import F, Const, Enum, Model, Spec, Str, Tagged


def variant_fields(union: Tagged, name: str) -> Model:
    """The fields of ``union``'s variants merged by name, in first-seen order."""
    declared: dict[str, list[tuple[str, F]]] = {}
    for variant, model in union.variants.items():
        for field in model.fields:
            declared.setdefault(field.name, []).append((variant, field))
    every = len(union.variants)
    fields = [F(field_name, _loosest([field.spec for _, field in taken]),
                required=len(taken) == every and all(field.required for _, field in taken),
                description=union.description if field_name == union.tag
                else _described(taken, every))
              for field_name, taken in declared.items()]
    return Model(name, fields)


def _loosest(specs: Sequence[Spec]) -> Spec:
    """A spec that takes what each of ``specs`` takes: the tag's values as an enum, strings of
    the widest bounds; other specs must be declared alike wherever they appear."""
    first = specs[0]
    if all(isinstance(spec, Const) and isinstance(spec.value, str) for spec in specs):
        return Enum(tuple(str(spec.value) for spec in specs if isinstance(spec, Const)))
    if all(spec == first for spec in specs):
        return first
    strings = [spec for spec in specs if isinstance(spec, Str)]
    if len(strings) == len(specs):
        maxima = [spec.max_length for spec in strings]
        return Str(min_length=min(spec.min_length for spec in strings),
                   max_length=None if None in maxima else max(m for m in maxima if m is not None))
    raise TypeError(f"fields of one name declared as different kinds of value: {specs}")


def _described(taken: Sequence[tuple[str, F]], every: int) -> str:
    """Each description with the variants it is for ("type, wait: ..."); just the description
    for a field every variant takes alike."""
    by_text: dict[str, list[str]] = {}
    for variant, field in taken:
        by_text.setdefault(field.description or field.spec.description, []).append(variant)
    if len(taken) == every and len(by_text) == 1:
        return next(iter(by_text))
    return " ".join(f"{', '.join(variants)}: {text}" if text else f"For {', '.join(variants)}."
                    for text, variants in by_text.items())
