"""A vendor action format (Anthropic's computer tool, OpenAI's computer_call, ...), in two halves:

- its declaration, one module in ``formats/`` (``FORMAT``, a VendorFormat): its name, its action
  model, which actions only look, and what the harness kit needs to send it actions (KitSide).
  A declaration imports no server code, so the kit names and plans formats without loading
  desktopd's input layer, X bindings, aiohttp or Pillow.
- its server side, ``format_servers/<name>_server.py`` (``SERVER``, a FormatServer), which the
  declaration names by its dotted path: the translation into desktopd input and the endpoints.
  desktopd resolves it (``VendorFormat.server_side()``) when it builds its routes or runs an act.

The routes and the OpenAPI document (desktopd/routes.py), POST /api/v1/step's act fields,
/vision/act's executors and the kit (desktopd_kit/actions.py, env.py) are all made from these."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from httpapi.declared import declared_in
from httpapi.fields import Model, Tagged

if TYPE_CHECKING:   # the server's types, named in annotations only: nothing of the server loads
    from desktopd.settle_browser import Clicks
    from desktopd.xservice import XService
    from httpapi.routing import Handler

    from .display import Display

COMPUTER_PATH = "/api/v1/computer"

# One action after validation: every field of its variant, defaults filled in.
Action = dict[str, Any]
# A JSON object as an endpoint answers it (and a schema as OpenAPI writes it).
JSONObject = dict[str, Any]
# An action as a client holds it, before validation (the kit's side).
RawAction = Mapping[str, object]


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
    kit: KitSide
    server: str               # the dotted name of the module declaring its SERVER (FormatServer)

    @property
    def path(self) -> str:
        return f"{COMPUTER_PATH}/{self.name}"

    def server_side(self) -> FormatServer:
        """The format's executor and endpoints: the one place its server module is imported."""
        return declared_in(self.server, "SERVER", FormatServer)

    def kind_of(self, act: RawAction) -> str:
        return str(act.get(self.action.tag))

    def only_looks(self, acts: Sequence[Action]) -> bool:
        """Whether a call made of ``acts`` changes nothing on the screen (nothing to settle)."""
        return all(self.kind_of(act) in self.looks for act in acts)


# -- the server side: the types a format_servers/ module declares --------------------------------

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
class FormatServer:
    perform: Perform
    clicks: ClicksOf
    endpoints: Sequence[Endpoint]
