"""A vendor action format's declaration (Anthropic's computer tool, OpenAI's computer_call, ...):
one module in ``formats/`` declares ``FORMAT``, a VendorFormat: its name, its action model, which
actions only look, and what the harness kit needs to send it actions (KitSide). It imports no
server code, so the kit names and plans formats without loading desktopd.

Its server side, ``desktopd/computer/format_servers/<name>_server.py`` (``SERVER``, a
desktopd.computer.vendor_format.FormatServer), is named here by its dotted path only: desktopd
resolves it (``desktopd.computer.vendor_format.server_side``) when it builds its routes or runs an
act. The routes and the OpenAPI document, POST /api/v1/step's act fields, /vision/act's executors
and the kit (desktopd_kit/actions.py, env.py) are all made from these declarations."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from httpapi.fields import Tagged
from httpapi.json_types import JSONObject

COMPUTER_PATH = "/api/v1/computer"

# One action after validation: every field of its variant, defaults filled in.
Action = dict[str, Any]
# An action as a client holds it, before validation (the kit's side).
RawAction = Mapping[str, object]


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
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

    def kind_of(self, act: RawAction) -> str:
        return str(act.get(self.action.tag))

    def only_looks(self, acts: Sequence[Action]) -> bool:
        """Whether a call made of ``acts`` changes nothing on the screen (nothing to settle)."""
        return all(self.kind_of(act) in self.looks for act in acts)
