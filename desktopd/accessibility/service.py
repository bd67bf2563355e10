"""The accessibility service: one read of the desktop's tree (filtered, optionally merged with the
browser's /layout and tied to X windows) and actions on one node. Raises domain errors only."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from desktopd_contract.windows import WindowInfo

from .bus import AtspiBus, CallFailed, CallTimedOut, NoSuchInterface, ObjectGone
from .ids import parse_atspi_id
from .merge import (DOCUMENT_ROLE, Layout, LayoutSource, LayoutUnavailable, MergedDocument,
                    containers_of_unplaced_tabs, merge_layout)
from .placement import SCREEN, SCREEN_SOURCE, WINDOW, PlacementSummary, place_in_windows
from .reader import ACTION, COMPONENT, DesktopReader, action_names
from .snapshot import Node, TreeFilter, WindowRef, accessible_node, application_node, shape, walk
from .xwindows import attach_windows, keep_window, windows_not_in_tree

FOCUS_ACTION = "focus"  # not an AT-SPI action: Component.GrabFocus
WindowLister = Callable[[], Awaitable[Sequence[WindowInfo]]]


class Pending(TypedDict, total=False):
    """Something the tree should have and has not yet (a desktop still starting)."""
    reason: str          # "window_not_in_tree" or "browser_unavailable"
    window: WindowRef
    detail: str


class MergeReport(TypedDict, total=False):
    source: str
    status: str          # "merged", "no_browser_document" or "layout_unavailable"
    detail: str
    documents: list[MergedDocument]


class Screen(TypedDict):
    width: int | None
    height: int | None


class TreeAnswer(TypedDict):
    """GET /api/v1/accessibility's answer."""
    coordinate_space: str
    applications: list[Node]
    node_count: int
    placement: PlacementSummary
    truncated: bool
    truncated_by: list[str]
    complete: bool
    pending: list[Pending]
    read_ms: float
    duration_ms: float
    merge: NotRequired[MergeReport]
    screen: NotRequired[Screen]      # the handler's: the backend's screen size


class ActionDone(TypedDict):
    ok: bool
    id: str
    action: str


class NodeNotFound(Exception):
    """No such node, or it is gone."""


class UnknownAction(Exception):
    def __init__(self, action: str, available: list[str]) -> None:
        super().__init__(f"{action!r} is not an action of this node (it has: {', '.join(available) or 'none'})")
        self.available = available


class ActionFailed(Exception):
    """The application refused or could not perform the action."""


@dataclass(frozen=True)
class TreeQuery:
    window: int | None = None
    pid: int | None = None
    app: str | None = None
    merge_browser: bool = False
    seconds: float = 5.0
    filter: TreeFilter = TreeFilter()


class AccessibilityService:
    def __init__(self, bus: AtspiBus, layout: LayoutSource) -> None:
        self.bus = bus
        self.reader = DesktopReader(bus)
        self.layout = layout

    async def tree(self, query: TreeQuery, list_windows: WindowLister,
                   extents: str = SCREEN) -> TreeAnswer:
        """``extents``: the space the backend's applications report extents in (placement.py)."""
        started = time.perf_counter()
        read = await self.reader.read(seconds=query.seconds,
                                      pids={query.pid} if query.pid is not None else None,
                                      app_names={query.app} if query.app else None)
        apps = [application_node(app) for app in read.applications]
        windows = await list_windows()
        if extents == WINDOW:
            placement = place_in_windows(apps, windows)
        else:
            attach_windows(apps, windows)
            placement = {"source": SCREEN_SOURCE}
        pending: list[Pending] = [{"reason": "window_not_in_tree", "window": window}
                                  for window in windows_not_in_tree(apps, windows)]
        if query.window is not None:
            apps = keep_window(apps, query.window)
        merge: MergeReport | None = None
        if query.merge_browser:
            merge = await self._merge(apps, query, started)
            if merge["status"] == "layout_unavailable":
                pending.append({"reason": "browser_unavailable", "detail": merge["detail"]})
        shaped, count, cut = shape(apps, query.filter)
        reasons = (["time_budget"] if read.timed_out else []) + (["max_nodes"] if cut else [])
        body: TreeAnswer = {"coordinate_space": "screen pixels", "applications": shaped, "node_count": count,
                "placement": placement, "truncated": bool(reasons), "truncated_by": reasons,
                # A desktop still starting: windows on screen whose application is not (yet) in
                # the tree, or the browser's pages not yet readable.
                "complete": not pending, "pending": pending,
                "read_ms": round(read.duration_ms, 1),
                "duration_ms": round((time.perf_counter() - started) * 1000, 1)}
        if merge is not None:
            body["merge"] = merge
        return body

    async def _merge(self, apps: list[Node], query: TreeQuery, started: float) -> MergeReport:
        left = query.seconds - (time.perf_counter() - started)
        try:
            layout = await self.layout.layout(query.filter.interesting, left)
        except LayoutUnavailable as exc:
            return {"source": "browser", "status": "layout_unavailable", "detail": str(exc), "documents": []}
        await self._add_uncached_documents(apps, layout, query.seconds + started)
        documents = merge_layout(apps, layout)
        status = "merged" if documents else "no_browser_document"
        return {"source": "browser", "status": status, "documents": documents}

    async def _add_uncached_documents(self, apps: list[Node], layout: Layout,
                                      until: float) -> None:
        """A shown tab with no document where its page is: the document is asked of the objects
        there (Chromium's cache can lack it after a navigation) and added to the tree. ``until``:
        the request's deadline (time.perf_counter)."""
        containers = containers_of_unplaced_tabs(apps, layout)
        if not containers:
            return
        known = {ref[1] for node in walk(apps) if (ref := parse_atspi_id(node["id"])) is not None}
        for container in containers:
            bus_name, path = parse_atspi_id(container["id"]) or ("", "")
            found = await self.reader.uncached_children(bus_name, path, known, DOCUMENT_ROLE,
                                                        max(until - time.perf_counter(), 0.1))
            container["children"].extend(accessible_node(document) for document in found)
            known.update(document.path for document in found)

    async def do(self, node_id: str, action: str, seconds: float = 5.0) -> ActionDone:
        ref = parse_atspi_id(node_id)
        if ref is None:
            raise NodeNotFound(f"{node_id!r} is not an AT-SPI node id (web nodes: click their center "
                               f"through /api/v1/tablet)")
        bus_name, path = ref
        try:
            if action == FOCUS_ACTION:
                done = (await self.bus.call(bus_name, path, COMPONENT, "GrabFocus", timeout=seconds))[0]
                return {"ok": bool(done), "id": node_id, "action": action}
            names = await action_names(self.bus, bus_name, path, seconds)
            lowered = [name.lower() for name in names]
            if not action or action.lower() not in lowered:
                raise UnknownAction(action, [n for n in names if n] + [FOCUS_ACTION])
            index = lowered.index(action.lower())
            done = (await self.bus.call(bus_name, path, ACTION, "DoAction", "i", [index], timeout=seconds))[0]
        except ObjectGone as exc:
            raise NodeNotFound(f"{node_id}: no such accessible object (gone?): {exc}") from None
        except NoSuchInterface:
            # No Component (cannot take focus) or no Action interface (nothing to do but focus).
            raise UnknownAction(action, [] if action == FOCUS_ACTION else [FOCUS_ACTION]) from None
        except CallFailed as exc:
            raise ActionFailed(str(exc)) from None
        except CallTimedOut as exc:
            raise ActionFailed(str(exc)) from None
        return {"ok": bool(done), "id": node_id, "action": names[index]}

    async def close(self) -> None:
        await self.bus.close()
        await self.layout.close()
