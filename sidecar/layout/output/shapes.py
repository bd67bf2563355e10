"""The JSON shapes of the /layout body (layout_schema.jsonc has every field), as the service
builds them: a tab's entry, and its layout or why it has none."""

from __future__ import annotations

from typing import TYPE_CHECKING, Required, TypedDict

from httpapi.json_types import JSONObject

if TYPE_CHECKING:
    from .encoding import NodeList


class Layout(TypedDict):
    """A tab's "layout": its nodes with their bounds in ``boundsSpace``; "nodes" last (the
    encoder splices their JSON in)."""

    source: str                  # "accessibility" or "dom"
    boundsSpace: str
    truncated: bool
    nodeCount: int
    viewport: JSONObject         # render.viewport_json
    nodes: NodeList


class FailedLayout(TypedDict):
    """A tab's "layout" when it could not be read: the reference's {"error": message}."""

    error: str
    code: str


class PendingNavigation(TypedDict):
    url: str


class ScreenBounds(TypedDict, total=False):
    """Whether the tab's screen bounds are exact (its window settled), or why not."""

    exact: Required[bool]
    reason: str


class TabEntry(TypedDict, total=False):
    """One tab of the body's "tabs"."""

    id: Required[str]
    url: Required[str]
    title: Required[str]
    pendingNavigation: Required[PendingNavigation | None]
    visible: bool | None
    layout: Layout | FailedLayout
    error: dict[str, object]     # the HTTP error body a route would give (sidecar/errors.py)
    screenBounds: ScreenBounds
