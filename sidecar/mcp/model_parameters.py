"""An MCP tool's parameters taken from the model of the HTTP route it wraps: the same names,
bounds and descriptions, so the tool and the route cannot disagree on what they accept."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypeVar, Union

from pydantic import Field
# pydantic takes typing_extensions' TypedDict, not typing's, on Python 3.11.
import typing_extensions
from typing_extensions import TypedDict

from httpapi.fields import AnyOf, Bool, Enum, Int, ListOf, Model, Nullable, Number, Spec, Str

ToolFunction = TypeVar("ToolFunction", bound=Callable[..., object])


class Constraints(TypedDict, total=False):
    """A value's bounds as pydantic's Field takes them (None: no bound)."""
    ge: float | None
    le: float | None
    gt: float | None
    min_length: int | None
    max_length: int | None


@dataclass(frozen=True)
class Parameters:
    """``names`` of ``model``'s fields as a tool's parameters. A field the model requires is a
    required parameter unless ``optional``: then every one may be left out (None: the route's
    default), as when the tool offers another way to say what the field says."""

    model: Model
    names: Sequence[str]
    optional: bool = False


def _subscript(form: Any, arguments: object) -> object:
    """``form[arguments]``: Annotated, Literal and Union built at run time from a model, which
    pydantic reads and the type checker cannot (so ``form`` is typed loosely)."""
    return form[arguments]


def _optional(python_type: object) -> object:
    return _subscript(Union, (python_type, None))


# TypedDict's functional form, called with fields known only at run time; looked up by name
# because the checker sees only the special form, not the class factory it also is.
_make_typed_dict: Callable[[str, dict[str, object]], object] = vars(typing_extensions)["TypedDict"]


def _annotated(python_type: object, constraints: Constraints, description: str) -> object:
    return _subscript(Annotated, (python_type, Field(description=description or None, **constraints)))


def _python_type(spec: Spec) -> tuple[object, Constraints]:
    """The annotation for ``spec`` and its pydantic constraints."""
    if isinstance(spec, Bool):
        return bool, {}
    if isinstance(spec, Int):
        return int, {"ge": spec.minimum, "le": spec.maximum}
    if isinstance(spec, Number):
        return float, {"ge": spec.minimum, "le": spec.maximum, "gt": spec.exclusive_minimum}
    if isinstance(spec, Str):
        return str, {"min_length": spec.min_length or None, "max_length": spec.max_length}
    if isinstance(spec, Enum):
        return _subscript(Literal, tuple(spec.values)), {}
    if isinstance(spec, ListOf):
        return _subscript(list, _constrained(spec.item)), {"min_length": spec.min_items or None,
                                                          "max_length": spec.max_items}
    if isinstance(spec, Nullable):
        return _optional(_constrained(spec.spec)), {}
    if isinstance(spec, AnyOf):
        return _subscript(Union, tuple(_constrained(option) for option in spec.options)), {}
    if isinstance(spec, Model):
        return _typed_dict(spec), {}
    raise TypeError(f"a {type(spec).__name__} field cannot be an MCP tool parameter")


def _constrained(spec: Spec) -> object:
    """``spec``'s annotation with its constraints, for a value inside a list, union or object."""
    python_type, constraints = _python_type(spec)
    return _annotated(python_type, constraints, spec.description)


def _typed_dict(model: Model) -> object:
    """A nested object as a TypedDict: pydantic checks it and hands the tool a plain dict."""
    fields = {}
    for field in model.fields:
        python_type, constraints = _python_type(field.spec)
        annotation = _annotated(python_type, constraints, field.description or field.spec.description)
        fields[field.name] = annotation if field.required else _subscript(NotRequired, annotation)
    return _make_typed_dict(model.name, fields)


def tool_parameters(group: Parameters) -> list[inspect.Parameter]:
    """Keyword parameters for ``group``'s fields, in its order."""
    fields = {field.name: field for field in group.model.fields}
    parameters = []
    for name in group.names:
        field = fields[name]
        python_type, constraints = _python_type(field.spec)
        required = field.required and not group.optional
        annotation = _annotated(python_type if required else _optional(python_type), constraints,
                                field.description or field.spec.description)
        parameters.append(inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
            default=inspect.Parameter.empty if required else None))
    return parameters


def with_model_parameters(*groups: Parameters) -> Callable[[ToolFunction], ToolFunction]:
    """Gives a tool function ``groups``' fields as parameters (FastMCP reads a tool's parameters
    from its signature and passes them by keyword). A parameter the function declares by a
    field's name gets the field's annotation and default (its own annotation is for the type
    checker); the other fields stand in for its ``**params``."""
    def decorate(function: ToolFunction) -> ToolFunction:
        signature = inspect.signature(function, eval_str=True)
        taken = {parameter.name: parameter for group in groups for parameter in tool_parameters(group)}
        parameters = [taken.pop(parameter.name, parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
                      for parameter in signature.parameters.values()
                      if parameter.kind is not inspect.Parameter.VAR_KEYWORD]
        if taken and not any(parameter.kind is inspect.Parameter.VAR_KEYWORD
                             for parameter in signature.parameters.values()):
            raise TypeError(f"{function.__name__} has neither parameters nor **params for {', '.join(taken)}")
        vars(function)["__signature__"] = signature.replace(parameters=[*parameters, *taken.values()])
        return function
    return decorate
