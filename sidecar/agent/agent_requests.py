"""Request models of the agent routes: they validate (422 naming the field) and generate the
sidecar's OpenAPI document, so both say the same."""

from __future__ import annotations

from typing import Literal, TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, Int, ListOf, Model, Str, Tagged

from .act_fields import REF, TAB, TAB_FIELD, TIMEOUT_FIELD
from .kinds import KINDS
from .tree_text import DEFAULT_MAX_CHARS, MAX_MAX_CHARS

# Each kind's fields and description are declared in its module of kinds/.
ACT_BODY = Tagged("kind", {name: kind.model() for name, kind in KINDS.items()},
                  description="One act on the page; kind says which.")



class SnapshotQuery(TypedDict):
    tab: str | None
    format: Literal["text", "json"]
    max_chars: int
    interactive: bool
    depth: int | None
    ref: str | None
    diff: bool
    client: str | None


class ConsoleQuery(TypedDict):
    tab: str | None
    level: Literal["debug", "info", "warning", "error"]
    limit: int


class TabQuery(TypedDict):
    tab: str | None


class RequestsQuery(TypedDict):
    tab: str | None
    limit: int
    failed: bool


class HistoryBody(TypedDict):
    tab: str | None
    timeout: float | None


class PdfBody(TypedDict):
    tab: str | None
    landscape: bool
    print_background: bool


class ElementScreenshotQuery(TypedDict):
    tab: str | None
    ref: str | None
    full_page: bool


class DialogHookBody(TypedDict):
    tab: str | None
    accept: bool
    prompt_text: str | None


class FileChooserHookBody(TypedDict):
    tab: str | None
    paths: list[str]


SNAPSHOT_QUERY = Typed(Model("SnapshotQuery", [
    F("tab", TAB),
    F("format", Enum(("text", "json")), default="text"),
    F("max_chars", Int(minimum=500, maximum=MAX_MAX_CHARS), default=DEFAULT_MAX_CHARS,
      description="Character budget; past it a marker line says how much was left out."),
    F("interactive", Bool(), default=False,
      description="Only elements an agent can act on, and their named ancestors."),
    F("depth", Int(minimum=1, maximum=1000), description="At most this many levels."),
    F("ref", REF, description="Only this element's subtree."),
    F("diff", Bool(), default=False,
      description="Subtrees equal to this client's previous snapshot of the tab print as [unchanged]."),
    F("client", Str(min_length=1, max_length=128),
      description="The client whose previous snapshot diff compares with (or the X-Agent-Client "
                  "header; default: one shared client)."),
]), SnapshotQuery)
CONSOLE_QUERY = Typed(Model("ConsoleQuery", [
    F("tab", TAB),
    F("level", Enum(("debug", "info", "warning", "error")), default="info",
      description="This level and above."),
    F("limit", Int(minimum=1, maximum=1000), default=200, description="The last this many."),
]), ConsoleQuery)
TAB_QUERY = Typed(Model("TabQuery", [F("tab", TAB)]), TabQuery)
REQUESTS_QUERY = Typed(Model("RequestsQuery", [
    F("tab", TAB), F("limit", Int(minimum=1, maximum=1000), default=200),
    F("failed", Bool(), default=False, description="Only failed requests and HTTP errors (>= 400)."),
]), RequestsQuery)
HISTORY_BODY = Typed(Model("History", [TAB_FIELD, TIMEOUT_FIELD]), HistoryBody)
PDF_BODY = Typed(Model("Pdf", [
    TAB_FIELD,
    F("landscape", Bool(), default=False),
    F("print_background", Bool(), default=True),
]), PdfBody)
SCREENSHOT_QUERY = Typed(Model("ElementScreenshotQuery", [
    F("tab", TAB), F("ref", REF, description="The element (default: the visible page)."),
    F("full_page", Bool(), default=False, description="The whole page, not only the viewport."),
]), ElementScreenshotQuery)
DIALOG_HOOK_BODY = Typed(Model("DialogHook", [
    TAB_FIELD,
    F("accept", Bool(), default=True),
    F("prompt_text", Str(max_length=100_000), description="The answer to a prompt()."),
]), DialogHookBody)
FILE_CHOOSER_HOOK_BODY = Typed(Model("FileChooserHook", [
    TAB_FIELD,
    F("paths", ListOf(Str(min_length=1, max_length=4096), max_items=100), required=True,
      description="Absolute paths of files on the sidecar's machine; [] cancels."),
]), FileChooserHookBody)
