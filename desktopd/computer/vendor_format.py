"""A vendor action format (Anthropic's computer tool, OpenAI's computer_call, ...), declared once:
one module in ``formats/`` holds its request models, its translation into desktopd input, its
endpoints and what the harness kit needs to send it actions. The routes and the OpenAPI
document (desktopd/routes.py), POST /api/v1/step's act fields, /vision/act's executors and the
kit (desktopd_kit/actions.py, env.py) are all made from the declarations in ``formats/``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from desktopd.settle_browser import Clicks
from desktopd.xservice import XService
from httpapi.fields import Model, Tagged
from httpapi.routing import Handler, Route

from .display import Display

COMPUTER_PATH = "/api/v1/computer"

# One action after validation: every field of its variant, defaults filled in.
Action = dict[str, Any]
# A JSON object as an endpoint answers it (and a schema as OpenAPI writes it).
JSONObject = dict[str, Any]
# An action as a client holds it, before validation (the kit's side).
RawAction = Mapping[str, object]


@dataclass(frozen=True)
class Performed:
    """What one action did: ``executed`` in screen pixels, and any text for the model."""

    executed: JSONObject
    text: str | None = None


class Perform(Protocol):
    """Runs one validated action; ``where`` prefixes the fields its errors name."""

    def __call__(self, xs: XService, display: Display, act: Action, where: str) -> Awaitable[Performed]: ...


class ClicksOf(Protocol):
    """The left clicks the actions of one call give a page (the browser's settle evidence)."""

    def __call__(self, acts: Sequence[Action], started: float) -> Clicks | None: ...


@dataclass(frozen=True)
class Endpoint:
    """One method on the format's path, /api/v1/computer/<name>."""

    method: str
    handler: Handler
    summary: str
    query: Model
    result: JSONObject
    body: Model | Tagged | None = None
    description: str = ""


@dataclass(frozen=True)
class KitSide:
    """What the harness kit knows of the format (desktopd_kit/actions.py): how it tells the
    format's actions from others, what it posts, and how it reads the answers."""

    recognises: Callable[[RawAction], bool]
    example: RawAction         # an action as an agent sends it, moving the pointer (tests run it)
    kinds: Mapping[str, str]   # every action name -> the kit's vocabulary (click, type, keys, ...)
    body: Callable[[Action], JSONObject]           # an action -> the endpoint's body
    executed: Callable[[JSONObject], JSONObject]   # the endpoint's answer -> what ran
    # (the action, its /step executed, its /step text) -> the answer the endpoint would give,
    # images left out: what a record keeps as the vendor reply.
    step_reply: Callable[[Action, JSONObject, str | None], JSONObject]
    query: Mapping[str, bool] = field(default_factory=dict)   # fixed query beside the display's
    unwrap: Callable[[RawAction], Action] = dict   # the action out of its wrapper


@dataclass(frozen=True)
class VendorFormat:
    name: str                 # the path segment, /api/v1/step's act field, the kit's format name
    action: Tagged            # one action (the step act, the vision executor's input)
    step_description: str     # its /api/v1/step field's description
    looks: frozenset[str]     # actions that change nothing on the screen: no settle after them
    perform: Perform
    clicks: ClicksOf
    endpoints: Sequence[Endpoint]
    kit: KitSide

    @property
    def path(self) -> str:
        return f"{COMPUTER_PATH}/{self.name}"

    def routes(self) -> list[Route]:
        return [Route(e.method, self.path, e.handler, e.summary, "computer", query=e.query, body=e.body,
                      success={"application/json": {"schema": e.result}}, description=e.description)
                for e in self.endpoints]

    def kind_of(self, act: RawAction) -> str:
        return str(act.get(self.action.tag))

    def only_looks(self, acts: Sequence[Action]) -> bool:
        """Whether a call made of ``acts`` changes nothing on the screen (nothing to settle)."""
        return all(self.kind_of(act) in self.looks for act in acts)
