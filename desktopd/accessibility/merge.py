"""One tree for the browser's UI and its page: the Chromium window's web-content subtree (its
"document web" object) is replaced with the sidecar's /layout nodes of the tab shown there.

/layout's nodes carry exact screen-pixel bounds measured from the page (the AT-SPI ones of web
content are Chromium's own estimate), and ids a /layout client already knows: "web:<tab>:<node>".
The sidecar being down never fails the request: the AT-SPI tree comes back with merge.status
saying why it was not merged.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TypedDict

import aiohttp

from httpapi.json_types import JSONValue

from .ids import web_id
from .snapshot import AXValue, Box, Node, Point, rect, walk

DOCUMENT_ROLE = "document web"
BROWSER_APP_NAMES = frozenset({"chromium", "google chrome", "chrome"})
ORIGIN_SLACK = 2.0  # px: the tab's screenOrigin and the document's AT-SPI corner may differ by rounding
TRUE_STRINGS = frozenset({"true", "mixed"})


# The sidecar's GET /layout answer (sidecar/layout/), as far as the merge reads it.
class ScreenPlace(TypedDict):
    borderBox: Box
    center: Point


class AXText(TypedDict):
    type: str
    value: str


class LayoutNode(TypedDict, total=False):
    nodeId: str
    parentId: str | None
    childIds: list[str]
    ignored: bool
    role: AXText
    name: AXText
    description: AXValue
    value: AXValue
    states: dict[str, JSONValue]
    screen: ScreenPlace | None
    visible: bool


class ScreenOrigin(TypedDict):
    x: float
    y: float


class Viewport(TypedDict):
    screenOrigin: ScreenOrigin


class TabLayout(TypedDict, total=False):
    nodes: list[LayoutNode]
    viewport: Viewport
    error: str               # instead of the others: why the tab could not be read


class LayoutTab(TypedDict, total=False):
    id: str
    url: str | None
    title: str | None
    visible: bool
    layout: TabLayout


class Layout(TypedDict, total=False):
    tabs: list[LayoutTab]


class MergedDocument(TypedDict):
    document: str
    tab: str
    url: str | None


class LayoutUnavailable(Exception):
    """The sidecar's /layout could not be read."""


@dataclass
class LayoutSource:
    """GET <sidecar>/layout with the configured token; one aiohttp session, opened on first use."""

    url: str
    token: str | None = None
    timeout: float = 10.0
    _session: aiohttp.ClientSession | None = None

    async def layout(self, interesting: bool, seconds: float) -> Layout:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        params = {"interesting": "true"} if interesting else {}
        try:
            async with self._session.get(self.url.rstrip("/") + "/layout", params=params, headers=headers,
                                         timeout=aiohttp.ClientTimeout(total=max(0.1, min(seconds, self.timeout)))) as resp:
                text = await resp.text()
                if resp.status != 200:
                    raise LayoutUnavailable(f"{self.url}/layout answered {resp.status}: {text[:200]}")
                layout: Layout = json.loads(text)   # the sidecar's shape, not checked here
                return layout
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            raise LayoutUnavailable(f"{self.url}/layout: {type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _states(states: dict[str, JSONValue]) -> list[str]:
    return [name for name, value in states.items()
            if value is True or (isinstance(value, str) and value.lower() in TRUE_STRINGS)]


def web_nodes(tab: LayoutTab) -> list[Node]:
    """The tab's /layout nodes as tree nodes: the children of its root (the document itself is
    the AT-SPI node they replace). Ignored nodes give their place to their children."""
    layout = tab.get("layout") or {}
    raw = {n["nodeId"]: n for n in layout.get("nodes", [])}

    def build(node_id: str) -> list[Node]:
        node = raw.get(node_id)
        if node is None:
            return []
        children = [kept for child in node.get("childIds", []) for kept in build(child)]
        if node.get("ignored"):
            return children
        screen = node.get("screen")
        bounds = center = None
        if screen and screen["borderBox"]["width"] > 0 and screen["borderBox"]["height"] > 0:
            box = screen["borderBox"]
            bounds, _ = rect(box["x"], box["y"], box["width"], box["height"])
            center = screen["center"]
        return [{"id": web_id(tab["id"], node_id), "source": "web",
                 "role": node["role"]["value"], "name": node["name"]["value"],
                 "description": node.get("description") or "", "value": node.get("value"),
                 "states": _states(node.get("states") or {}), "actions": None,
                 "bounds": bounds, "center": center, "visible": node.get("visible", False),
                 "children": children}]

    roots = [n for n in raw.values() if not n.get("parentId") or n["parentId"] not in raw]
    out: list[Node] = []
    for root in roots:
        out.extend(child for child_id in root.get("childIds", []) for child in build(child_id))
    return out


def _shown_tabs(tabs: list[LayoutTab]) -> list[LayoutTab]:
    """The tabs shown in their windows that have a layout."""
    return [tab for tab in tabs if tab.get("visible") and tab.get("layout") and "viewport" in tab["layout"]]


def _starts_at(bounds: Box | None, tab: LayoutTab) -> bool:
    """Whether an object with ``bounds`` starts where the tab's viewport does."""
    if bounds is None:
        return False
    origin = tab["layout"]["viewport"]["screenOrigin"]
    return abs(origin["x"] - bounds["x"]) <= ORIGIN_SLACK and abs(origin["y"] - bounds["y"]) <= ORIGIN_SLACK


def _tab_for(document: Node, tabs: list[LayoutTab]) -> LayoutTab | None:
    """The visible tab whose viewport starts where the document object is (a document with no
    area on screen, such as a closed popup's, has none)."""
    return next((tab for tab in _shown_tabs(tabs) if _starts_at(document["bounds"], tab)), None)


def containers_of_unplaced_tabs(apps: list[Node], layout: Layout) -> list[Node]:
    """The browser's showing objects that start where a shown tab's page does when no document
    does: where the page's document is, though the tree read from the application's cache lacks
    it (reader.DesktopReader.uncached_children finds it)."""
    documents = browser_documents(apps)
    unplaced = [tab for tab in _shown_tabs(layout.get("tabs", []))
                if not any(_starts_at(document["bounds"], tab) for document in documents)]
    return [node for app in apps if app["name"].lower() in BROWSER_APP_NAMES
            for node in walk(app["children"])
            if node["role"] != DOCUMENT_ROLE and "showing" in node["states"]
            and any(_starts_at(node["bounds"], tab) for tab in unplaced)]


def browser_documents(apps: list[Node]) -> list[Node]:
    return [node for app in apps if app["name"].lower() in BROWSER_APP_NAMES
            for node in walk(app["children"])
            if node["role"] == DOCUMENT_ROLE and "showing" in node["states"]]


def merge_layout(apps: list[Node], layout: Layout) -> list[MergedDocument]:
    """Replace each showing browser document's children with its tab's nodes; what was merged."""
    merged: list[MergedDocument] = []
    tabs = list(layout.get("tabs", []))
    for document in browser_documents(apps):
        tab = _tab_for(document, tabs)
        if tab is None:
            continue
        tabs.remove(tab)  # one page, one place in the tree
        document["children"] = web_nodes(tab)
        document["merged"] = {"source": "web", "tab": tab["id"], "url": tab.get("url"),
                              "title": tab.get("title")}
        merged.append({"document": document["id"], "tab": tab["id"], "url": tab.get("url")})
    return merged
