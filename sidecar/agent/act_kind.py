"""One /act kind, declared once: its request fields, what it needs before it runs (the element
of ``ref``, aimed at or not), its handler and its descriptions. Validation and the OpenAPI
document (agent_requests.ACT_BODY), dispatch (act.py), the MCP tool (mcp/tools.py) and the table
in docs/agent.md are all made from the declarations in ``kinds/``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from httpapi.fields import F, Model, tagged_variant

from .act_fields import ACT_COMMON
from .gestures import ActContext
from .resolve import Element

# A request body after validation: every field of the kind's model, defaults filled in.
ActBody = Mapping[str, Any]
# What a kind adds to the act's answer: JSON members (element, point, selected, result...).
ActAnswer = dict[str, object]


@dataclass(frozen=True)
class Target:
    """What the act runs on: the element of ``ref`` (None without one) and, for kinds that aim,
    the point the input goes to (the element scrolled into view, its box re-read)."""

    element: Element | None
    point: tuple[float, float] | None

    def the_element(self) -> Element:
        """The element, for a kind whose ref is required (dispatch resolved it)."""
        assert self.element is not None, "a kind with ref='required' always has its element"
        return self.element

    def the_point(self) -> tuple[float, float]:
        """The point, for a kind that aims (dispatch aimed at the element)."""
        assert self.point is not None, "a kind with aims=True always has its point"
        return self.point


class Handler(Protocol):
    def __call__(self, ctx: ActContext, target: Target, body: ActBody) -> Awaitable[ActAnswer]: ...


@dataclass(frozen=True)
class ActKind:
    name: str
    fields: list[F]
    description: str                # the OpenAPI variant's, and the MCP tool's line for it
    doc: str                        # its cell of docs/agent.md's table (Markdown)
    run: Handler
    ref: Literal["required", "optional", "none"] = "none"   # resolve body["ref"] first
    aims: bool = False              # scroll the element into view and read its point first
    visible_input: bool = False     # visible mode goes through desktopd
    presses: bool = False           # presses a button at the point it aimed at
    settles: bool = True            # wait for a navigation the act started
    own_time: Callable[[ActBody], float] | None = None      # seconds the act itself may take

    def model(self) -> Model:
        return tagged_variant("kind", self.name, [*self.fields, *ACT_COMMON],
                              name=f"Act{self.name.title().replace('_', '')}", description=self.description)
