"""Request models of the accessibility endpoints (validation and OpenAPI from one declaration)."""

from __future__ import annotations

from typing import Literal, TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, Int, Model, Str

MAX_SECONDS = 60.0


def _roles_problem(value: str) -> str | None:
    if not [role for role in value.split(",") if role.strip()]:
        return "expected comma-separated role names, e.g. push button,entry,link"
    return None


class AccessibilityQuery(TypedDict):
    window: int | None
    pid: int | None
    app: str | None
    interesting: bool
    roles: str | None
    max_depth: int | None
    max_nodes: int | None
    timeout_ms: int
    merge: Literal["browser"] | None


ACCESSIBILITY_QUERY = Typed(Model("AccessibilityQuery", [
    F("window", Int(1, (1 << 32) - 1),
      description="Only the top-levels of this X window (client or frame id, decimal or 0x hex, "
                  "as /api/v1/tree gives them)."),
    F("pid", Int(1, (1 << 31) - 1), description="Only the application of this process."),
    F("app", Str(min_length=1, max_length=200),
      description="Only applications of this name (case-insensitive), e.g. mousepad, Chromium."),
    F("interesting", Bool(), default=False,
      description="Only nodes on screen that are named, actionable, editable or interactive; "
                  "the others give their place to their kept children. Applications and their "
                  "top-levels always stay."),
    F("roles", Str(min_length=1, max_length=2000, check=_roles_problem),
      description="Comma-separated roles to keep (AT-SPI names such as push button, or web roles "
                  "such as button); the others give their place to their kept children."),
    F("max_depth", Int(0, 10_000), description="Levels below the applications (0: applications only)."),
    F("max_nodes", Int(1, 1_000_000), description="Stop after this many nodes (pre-order); "
                                                   "truncated is then true."),
    F("timeout_ms", Int(50, int(MAX_SECONDS * 1000)), default=5000,
      description="Time budget: applications or details that have not answered by then are left "
                  "out and truncated is true (truncated_by says time_budget)."),
    F("merge", Enum(("browser",)),
      description="browser: the Chromium window's page subtree comes from the sidecar's /layout "
                  "(ids web:<tab>:<node>)."),
]), AccessibilityQuery)


class AccessibilityAction(TypedDict):
    action: str
    timeout_ms: int


ACCESSIBILITY_ACTION_BODY = Typed(Model("AccessibilityAction", [
    F("action", Str(min_length=1, max_length=100), required=True,
      description="An AT-SPI action name the node lists (press, activate, click, toggle, ...; "
                  "case-insensitive), or focus (Component.GrabFocus)."),
    F("timeout_ms", Int(50, int(MAX_SECONDS * 1000)), default=5000,
      description="How long the application may take to answer."),
]), AccessibilityAction)
