"""A /layout node as the agent reads it (layout_schema.jsonc describes every field): the parts its
tree, its aim and its snapshot JSON use."""

from __future__ import annotations

from typing import NotRequired, Required, TypedDict

from httpapi.json_types import JSONValue


class TypedValue(TypedDict):
    """A node's role or name, in CDP's AXValue shape."""

    type: str
    value: str


class Rect(TypedDict):
    x: float
    y: float
    width: float
    height: float


class Point(TypedDict):
    x: int
    y: int


class Bounds(Rect):
    """The content box in the layout's bounds space, with the border box."""

    space: str
    borderBox: Rect


class ViewportBox(TypedDict):
    space: str
    borderBox: Rect


class ScreenBox(TypedDict):
    space: str
    borderBox: Rect
    center: Point
    clickPoint: Point | None        # the centre of the largest visible part


class LayoutNode(TypedDict, total=False):
    nodeId: Required[str]
    role: TypedValue
    name: TypedValue
    valueText: str | None
    states: dict[str, bool | str]
    propertyValues: dict[str, JSONValue]
    ignored: bool
    parentId: str
    childIds: list[str]
    backendDOMNodeId: int | None
    frameId: str
    targetId: str
    bounds: Bounds
    viewport: ViewportBox | None
    screen: ScreenBox | None
    visible: bool
    hittable: bool | None


class TabLayout(TypedDict):
    nodes: list[LayoutNode]


class TabEntry(TypedDict, total=False):
    """One tab of the /layout body (the agent asks for one tab at a time)."""

    url: str
    title: str
    layout: Required[TabLayout]


class SnapshotNode(TypedDict):
    """One node of GET /snapshot?format=json's tree."""

    role: str
    name: str
    ref: NotRequired[str]
    value: NotRequired[str]
    states: NotRequired[dict[str, bool | str]]
    level: NotRequired[JSONValue]
    url: NotRequired[JSONValue]
    screen: NotRequired[ScreenBox | None]
    visible: NotRequired[bool | None]      # always there: last, as the JSON has it
    unchanged: NotRequired[bool]
    below: NotRequired[int]                 # nodes below it not shown (depth=)
    children: NotRequired[list[SnapshotNode]]
