"""A vendor action format's server side (its declaration: desktopd_contract/vendor_format.py):
``format_servers/<name>_server.py`` declares ``SERVER``, a FormatServer, the translation of the
format's actions into desktopd input and its endpoints on /api/v1/computer/<name>."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from desktopd_contract.vendor_format import Action, JSONObject, VendorFormat
from httpapi.declared import declared_in
from httpapi.fields import Model, Tagged
from httpapi.responses import Schematic

if TYPE_CHECKING:   # named in annotations only
    from desktopd.settle.browser import Clicks
    from desktopd.backend.service import BackendService
    from httpapi.routing import QueryHandler

    from .display import Display


def server_side(fmt: VendorFormat) -> FormatServer:
    """The format's executor and endpoints: the one place its server module is imported."""
    return declared_in(fmt.server, "SERVER", FormatServer)



@dataclass(frozen=True)
class Performed:
    """What one action did: ``executed`` in screen pixels, and any text for the model."""

    executed: JSONObject
    text: str | None = None


class Perform(Protocol):
    """Runs one validated action; ``where`` prefixes the fields its errors name."""

    def __call__(self, xs: BackendService, display: Display, act: Action, where: str) -> Awaitable[Performed]: ...


class ClicksOf(Protocol):
    """The left clicks the actions of one call give a page (the browser's settle evidence)."""

    def __call__(self, acts: Sequence[Action], started: float) -> Clicks | None: ...


@dataclass(frozen=True)
class Endpoint:
    """One method on the format's path, /api/v1/computer/<name>."""

    method: str
    # with_query of a plain Model (httpapi/routing.py): one type for every format's query, whose
    # fields differ; the handlers read it as a Mapping[str, object].
    handler: QueryHandler[dict[str, Any]]
    summary: str
    result: Schematic
    body: Model | Tagged | None = None
    description: str = ""

    @property
    def query(self) -> Model:
        return self.handler.model


@dataclass(frozen=True)
class FormatServer:
    perform: Perform
    clicks: ClicksOf
    endpoints: Sequence[Endpoint]
