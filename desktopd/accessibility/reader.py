"""Read every application's accessible objects off the AT-SPI bus, in bulk and within a deadline.

Per application: one org.a11y.atspi.Cache.GetItems call gives every cached object with its role,
name, description, states, interfaces and parent; then the per-object details AT-SPI has no bulk
call for (screen extents, action names, values) are sent all at once and their replies collected
together (pipelined: one round trip's latency for the lot, not one per object). Extents are asked
only of objects that are showing (the others have no place on the screen: a closed menu's items
are most of a GTK app's objects), action names only of showing objects that are named or of an
interactive role (Chromium gives every panel a doDefault; each costs two or three calls).

An application's cache can lack whole top-levels: Chromium announces none of its menus and
dialogs (the app menu, "Edit bookmark") to it, though they are children of the application.
Top-levels the application lists but its cache lacks are read by walking them, one level of
calls at a time (uncached_tops).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import TypeVar

from .bus import REGISTRY, ROOT_PATH, AtspiBus, BusUnavailable, CallFailed, CallTimedOut, DBusValues, ObjectGone
from .vocabulary import INTERACTIVE_ROLES, role_name, state_names

T = TypeVar("T")
R = TypeVar("R")

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
ACTION = "org.a11y.atspi.Action"
VALUE = "org.a11y.atspi.Value"
TEXT = "org.a11y.atspi.Text"
EDITABLE_TEXT = "org.a11y.atspi.EditableText"
SCREEN_COORDS = 0  # ATSPI_COORD_TYPE_SCREEN
MAX_TEXT_VALUE = 4096  # characters of an editable text read as its value
SECRET_ROLES = frozenset({"password text"})
PROPERTIES = "org.freedesktop.DBus.Properties"
# Bounds of a walk of uncached top-levels (a menu is a few dozen objects, a dialog a few hundred).
MAX_WALKED_NODES = 3000
MAX_WALKED_DEPTH = 64


@dataclass
class Accessible:
    bus: str
    path: str
    parent: tuple[str, str]
    index: int
    interfaces: list[str]
    name: str
    role: str
    description: str
    states: list[str]
    bounds: tuple[int, int, int, int] | None = None
    actions: list[str] | None = None  # None: not read (the object is not showing)
    value: str | None = None
    children: list[Accessible] = field(default_factory=list)

    @property
    def showing(self) -> bool:
        return "showing" in self.states


@dataclass
class Application:
    bus: str
    pid: int | None
    root: Accessible | None = None
    node_count: int = 0
    error: str | None = None


@dataclass
class DesktopRead:
    applications: list[Application]
    timed_out: bool
    duration_ms: float


def _accessible(item: DBusValues) -> Accessible:
    (bus, path), _app, (parent_bus, parent_path), index, _count, interfaces, name, role, description, states = item
    return Accessible(bus=bus, path=path, parent=(parent_bus, parent_path), index=index,
                      interfaces=interfaces, name=name.strip(), role=role_name(role),
                      description=description, states=state_names(states))


def link(nodes: list[Accessible], bus_name: str) -> Accessible:
    """Children lists from parent references; objects whose parent is not in the cache (popups,
    windows of the same process) hang under the application root."""
    by_path = {node.path: node for node in nodes}
    root = by_path.get(ROOT_PATH)
    if root is None:
        root = Accessible(bus=bus_name, path=ROOT_PATH, parent=("", ""), index=-1, interfaces=[],
                          name="", role="application", description="", states=[])
    for node in nodes:
        if node is root:
            continue
        parent = by_path.get(node.parent[1]) if node.parent[0] == bus_name else None
        (parent or root).children.append(node)
    order = {node.path: i for i, node in enumerate(nodes)}
    for node in nodes:
        node.children.sort(key=lambda child: (child.index < 0, child.index, order[child.path]))
    root.children.sort(key=lambda child: (child.index < 0, child.index, order.get(child.path, 0)))
    return root


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())


async def _settle(calls: dict[T, Awaitable[R]], deadline: Deadline) -> tuple[dict[T, R], bool]:
    """Run every call at once; the results that came in before the deadline (failures left out)
    and whether any was still pending when it passed (those are cancelled)."""
    if not calls:
        return {}, False
    tasks = {key: asyncio.ensure_future(call) for key, call in calls.items()}
    done, pending = await asyncio.wait(tasks.values(), timeout=deadline.left())
    for task in pending:
        task.cancel()
    results = {}
    for key, task in tasks.items():
        if task in done and not task.cancelled() and task.exception() is None:
            results[key] = task.result()
    if any(isinstance(t.exception(), BusUnavailable) for t in done if not t.cancelled()):
        raise BusUnavailable("the accessibility bus went away during the read")
    return results, bool(pending)


class DesktopReader:
    """Reads applications through one AtspiBus; stateless between reads."""

    def __init__(self, bus: AtspiBus) -> None:
        self.bus = bus

    async def application_refs(self, deadline: Deadline) -> list[str]:
        try:
            children = await self.bus.call(REGISTRY, ROOT_PATH, ACCESSIBLE,
                                           "GetChildren", timeout=max(deadline.left(), 0.5))
        except (ObjectGone, CallFailed, CallTimedOut) as exc:
            raise BusUnavailable(f"the accessibility registry does not answer: {exc}") from None
        return [bus_name for bus_name, _path in children[0]]

    async def pid_of(self, bus_name: str, timeout: float) -> int | None:
        try:
            reply = await self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s",
                                        [bus_name], timeout=timeout)
        except (ObjectGone, CallFailed, CallTimedOut):
            return None
        return int(reply[0])

    async def items(self, bus_name: str, timeout: float) -> list[Accessible]:
        reply = await self.bus.call(bus_name, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache",
                                    "GetItems", timeout=timeout)
        return [_accessible(item) for item in reply[0]]

    async def read(self, *, seconds: float, pids: Collection[int] | None = None,
                   app_names: Collection[str] | None = None, details: bool = True,
                   keep: Callable[[Application], bool] | None = None) -> DesktopRead:
        started = time.perf_counter()
        deadline = Deadline(seconds)
        names = await self.application_refs(deadline)
        pid_list, late = await _settle({n: self.pid_of(n, deadline.left() or 0.1) for n in names}, deadline)
        apps = [Application(bus=n, pid=pid_list.get(n)) for n in names]
        if pids is not None:
            apps = [app for app in apps if app.pid in pids]
        item_lists, items_late = await _settle({app.bus: self._items_or_error(app, deadline) for app in apps},
                                               deadline)
        timed_out = late or items_late
        wanted = {name.lower() for name in app_names} if app_names else None
        kept: list[tuple[Application, list[Accessible]]] = []
        for app in apps:
            nodes = item_lists.get(app.bus)
            if nodes is None:
                app.error = app.error or "did not answer GetItems in time"
                if wanted is None:
                    kept.append((app, []))
                continue
            app.root = link(nodes, app.bus)
            app.node_count = len(nodes)
            if wanted is not None and app.root.name.lower() not in wanted:
                continue
            if keep is not None and not keep(app):
                continue
            kept.append((app, nodes))
        walkable = [(app.root, nodes) for app, nodes in kept if app.root is not None]
        walks = await asyncio.gather(*(self.uncached_tops(root, {node.path for node in nodes}, deadline)
                                       for root, nodes in walkable))
        for (_root, nodes), walked in zip(walkable, walks):
            nodes += walked
        for app, nodes in kept:
            app.node_count = len(nodes)
        if details:
            timed_out |= await self._details([n for _app, nodes in kept for n in nodes], deadline)
            for _app, nodes in kept:
                for node in nodes:
                    _order_children(node)
        return DesktopRead(applications=[app for app, _nodes in kept], timed_out=timed_out,
                           duration_ms=(time.perf_counter() - started) * 1000)

    async def _items_or_error(self, app: Application, deadline: Deadline) -> list[Accessible] | None:
        try:
            return await self.items(app.bus, deadline.left() or 0.1)
        except (ObjectGone, CallFailed, CallTimedOut) as exc:
            app.error = str(exc)
            return None

    async def _details(self, nodes: list[Accessible], deadline: Deadline) -> bool:
        # Each call unbounded on its own: _settle cancels whatever the deadline leaves unanswered.
        calls: dict[tuple[int, str], Awaitable[DBusValues]] = {}
        for i, node in enumerate(nodes):
            if COMPONENT in node.interfaces and node.showing:
                calls[(i, "bounds")] = self.bus.call(node.bus, node.path, COMPONENT, "GetExtents", "u",
                                                     [SCREEN_COORDS], timeout=None)
            if ACTION in node.interfaces and node.showing and (node.role in INTERACTIVE_ROLES or node.name):
                calls[(i, "actions")] = self.bus.call(node.bus, node.path, ACTION, "GetActions",
                                                      timeout=None)
            if VALUE in node.interfaces:
                calls[(i, "value")] = self.bus.call(node.bus, node.path, "org.freedesktop.DBus.Properties",
                                                    "Get", "ss", [VALUE, "CurrentValue"], timeout=None)
            elif EDITABLE_TEXT in node.interfaces and TEXT in node.interfaces and node.role not in SECRET_ROLES:
                calls[(i, "text")] = self.bus.call(node.bus, node.path, TEXT, "GetText", "ii",
                                                   [0, MAX_TEXT_VALUE], timeout=None)
        results, late = await _settle(calls, deadline)
        unnamed: dict[tuple[int, int], Awaitable[DBusValues]] = {}
        for (i, kind), body in results.items():
            node = nodes[i]
            if kind == "bounds":
                x, y, w, h = body[0]
                node.bounds = (x, y, w, h)
            elif kind == "actions":
                node.actions = [name for name, _description, _keys in body[0]]
                for index, name in enumerate(node.actions):
                    if not name:  # Chromium localises no action names: ask for the plain one
                        unnamed[(i, index)] = self.bus.call(node.bus, node.path, ACTION, "GetName", "i",
                                                            [index], timeout=None)
            elif kind == "value":
                node.value = _number_text(body[0].value)
            else:
                node.value = body[0]
        names, names_late = await _settle(unnamed, deadline)
        for (i, index), body in names.items():
            actions = nodes[i].actions
            if actions is not None:   # it listed the unnamed one
                actions[index] = body[0]
        for node in nodes:
            if node.actions is not None:
                node.actions = [name for name in node.actions if name]
        return late or names_late


    async def uncached_tops(self, root: Accessible, cached: Collection[str],
                            deadline: Deadline) -> list[Accessible]:
        """The top-levels (and everything under them) the application lists as its children but
        its cache lacks, hung under ``root``; every object read, in walk order."""
        try:
            listed = (await self.bus.call(root.bus, ROOT_PATH, ACCESSIBLE, "GetChildren",
                                          timeout=deadline.left() or 0.1))[0]
        except (ObjectGone, CallFailed, CallTimedOut):
            return []
        frontier = [(root, index, child_path) for index, (child_bus, child_path) in enumerate(listed)
                    if child_bus == root.bus and child_path not in cached]
        walked: list[Accessible] = []
        depth = 0
        while frontier and depth < MAX_WALKED_DEPTH and len(walked) < MAX_WALKED_NODES:
            frontier = frontier[:MAX_WALKED_NODES - len(walked)]
            read, _late = await _settle({path: self._live_object(root.bus, path) for _p, _i, path in frontier},
                                        deadline)
            next_frontier = []
            for parent, index, path in frontier:
                if path not in read:
                    continue   # gone, or the deadline passed
                node, children = read[path]
                node.parent, node.index = (parent.bus, parent.path), index
                parent.children.append(node)
                walked.append(node)
                next_frontier += [(node, i, child_path) for i, (child_bus, child_path) in enumerate(children)
                                  if child_bus == root.bus and child_path not in cached]
            frontier = next_frontier
            depth += 1
        return walked

    async def _live_object(self, bus_name: str, path: str) -> tuple[Accessible, list[tuple[str, str]]]:
        """One object as the cache would give it, asked call by call (all at once), and its children."""
        role, name, description, states, interfaces, children = await asyncio.gather(
            self.bus.call(bus_name, path, ACCESSIBLE, "GetRole", timeout=None),
            self.bus.call(bus_name, path, PROPERTIES, "Get", "ss", [ACCESSIBLE, "Name"], timeout=None),
            self.bus.call(bus_name, path, PROPERTIES, "Get", "ss", [ACCESSIBLE, "Description"], timeout=None),
            self.bus.call(bus_name, path, ACCESSIBLE, "GetState", timeout=None),
            self.bus.call(bus_name, path, ACCESSIBLE, "GetInterfaces", timeout=None),
            self.bus.call(bus_name, path, ACCESSIBLE, "GetChildren", timeout=None))
        node = Accessible(bus=bus_name, path=path, parent=("", ""), index=-1, interfaces=list(interfaces[0]),
                          name=str(name[0].value).strip(), role=role_name(role[0]),
                          description=str(description[0].value), states=state_names(states[0]))
        return node, [(child_bus, child_path) for child_bus, child_path in children[0]]

    async def uncached_children(self, bus_name: str, path: str, known: Collection[str], role: str,
                                seconds: float) -> list[Accessible]:
        """The live children of one object that have ``role`` and that the application's cache
        (GetItems) does not hold (``known``: the paths it does), with their states and extents.
        Chromium does not announce to its cache a web document that replaced another in a new
        renderer (a navigation typed in the address bar): asking the container finds it."""
        deadline = Deadline(seconds)
        try:
            children = (await self.bus.call(bus_name, path, ACCESSIBLE, "GetChildren",
                                            timeout=deadline.left() or 0.1))[0]
        except (ObjectGone, CallFailed, CallTimedOut):
            return []
        unknown = {index: child_path for index, (child_bus, child_path) in enumerate(children)
                   if child_bus == bus_name and child_path not in known}
        roles, _late = await _settle({index: self.bus.call(bus_name, child_path, ACCESSIBLE, "GetRole",
                                                           timeout=None)
                                      for index, child_path in unknown.items()}, deadline)
        found = {index: unknown[index] for index, reply in roles.items() if role_name(reply[0]) == role}
        calls: dict[tuple[int, str], Awaitable[DBusValues]] = {}
        for index, child_path in found.items():
            calls[(index, "states")] = self.bus.call(bus_name, child_path, ACCESSIBLE, "GetState",
                                                     timeout=None)
            calls[(index, "bounds")] = self.bus.call(bus_name, child_path, COMPONENT, "GetExtents", "u",
                                                     [SCREEN_COORDS], timeout=None)
        details, _late = await _settle(calls, deadline)
        out = []
        for index, child_path in found.items():
            if (index, "states") not in details:
                continue
            extents = details.get((index, "bounds"))
            out.append(Accessible(bus=bus_name, path=child_path, parent=(bus_name, path), index=index,
                                  interfaces=[ACCESSIBLE, COMPONENT], name="", role=role, description="",
                                  states=state_names(details[(index, "states")][0]),
                                  bounds=tuple(extents[0]) if extents is not None else None))
        return out


def _order_children(node: Accessible) -> None:
    """Index order when the toolkit gives every child one; else (GTK menus leave -1) top to
    bottom, left to right on the screen, unplaced children last."""
    if all(child.index >= 0 for child in node.children):
        return  # link() sorted them by index already
    far = 1 << 30
    node.children.sort(key=lambda c: (c.bounds is None, c.bounds[1] if c.bounds else far,
                                      c.bounds[0] if c.bounds else far))


async def action_names(bus: AtspiBus, bus_name: str, path: str, timeout: float) -> list[str]:
    """One object's action names in index order ("" where it has none)."""
    listed = [name for name, _description, _keys in
              (await bus.call(bus_name, path, ACTION, "GetActions", timeout=timeout))[0]]
    for index, name in enumerate(listed):
        if not name:
            listed[index] = (await bus.call(bus_name, path, ACTION, "GetName", "i", [index],
                                            timeout=timeout))[0]
    return listed


def _number_text(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
