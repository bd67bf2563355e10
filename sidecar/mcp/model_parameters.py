"""An MCP tool's parameters taken from the model of the HTTP route it wraps: the same names,
bounds and descriptions, so the tool and the route cannot disagree on what they accept."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field

from httpapi.fields import Bool, Enum, Int, Model, Number, Spec, Str

ToolFunction = TypeVar("ToolFunction", bound=Callable[..., object])


def _python_type(spec: Spec) -> tuple[Any, dict[str, Any]]:
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
        return Literal[tuple(spec.values)], {}
    raise TypeError(f"a {type(spec).__name__} field cannot be an MCP tool parameter")


def tool_parameters(model: Model, names: Sequence[str]) -> list[inspect.Parameter]:
    """Keyword parameters for ``names`` of ``model``, each optional (None: the route's default)."""
    fields = {field.name: field for field in model.fields}
    parameters = []
    for name in names:
        field = fields[name]
        python_type, constraints = _python_type(field.spec)
        limits = {key: value for key, value in constraints.items() if value is not None}
        # Built at run time from the model, so not a type the checker can read.
        annotated: Any = Annotated
        annotation = annotated[python_type | None,
                               Field(description=field.description or field.spec.description, **limits)]
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                            annotation=annotation))
    return parameters


def with_model_parameters(model: Model, names: Sequence[str]) -> Callable[[ToolFunction], ToolFunction]:
    """Gives a ``**params`` tool function the signature ``tool_parameters`` makes (FastMCP reads
    a tool's parameters from its signature)."""
    def decorate(function: ToolFunction) -> ToolFunction:
        signature = inspect.signature(function)
        vars(function)["__signature__"] = signature.replace(parameters=tool_parameters(model, names))
        return function
    return decorate
