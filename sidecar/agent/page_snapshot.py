"""GET /snapshot's work: one tab's /layout nodes (the same layout service, so the same tree and boxes),
its frames' documents, refs from the tab's table, then the bounded rendering."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from httpapi.errors import ApiError

from ..cdp.connection import CDPError
from ..cdp.pages import visibility_state
from ..cdp.targets import ChildTarget, PageTarget, TargetTracker
from ..layout.runtime.seams import TabHealth
from ..layout import LayoutOptions, LayoutService
from ..layout.runtime.memory import gc_paused
from .events import ModalState
from .layout_node import TabEntry
from .refs import RefTable
from .tree_text import Rendered, RenderOptions, render
from .session import AgentSession
from .tree import AgentNode, agent_nodes, walk
from ..errors import TabNotFound

FRONT_PROBE_S = 2.0
READ_ATTEMPTS = 3


@dataclass
class Snapshot:
    page: PageTarget
    url: str
    title: str
    rendered: Rendered
    modal: ModalState | None
    navigation_pending: dict[str, str] | None = None


def stale_ref(ref: str, why: str) -> ApiError:
    return ApiError(409, "stale_ref", f"ref {ref} {why}; take a new snapshot (GET /snapshot) and "
                    "use the refs it gives", field="ref")


def unknown_ref(ref: str) -> ApiError:
    return ApiError(404, "unknown_ref", f"ref {ref} was never given for this tab; take a snapshot "
                    "(GET /snapshot) and use its refs", field="ref")


async def pick_tab(tracker: TargetTracker, tab: str | None) -> PageTarget:
    """``tab`` (an id or unique prefix), or the tab in front."""
    if tab is not None:
        page = tracker.find_page(tab)
        if page is None:
            raise TabNotFound(tab, field="tab")
        return page
    pages = [p for p in tracker.pages() if not p.crashed]
    if not pages:
        raise ApiError(409, "no_tab", "no tab is open (or every tab crashed): open one with POST /tabs")
    if len(pages) == 1:
        return pages[0]         # shown or not, the only one: no need to ask

    states = await asyncio.gather(*(visibility(p) for p in pages))
    return next((p for p, state in zip(pages, states) if state == "visible"), pages[0])


async def visibility(page: PageTarget) -> str | None:
    """The tab's document.visibilityState, or None when it does not answer within FRONT_PROBE_S."""
    try:
        return await visibility_state(page, FRONT_PROBE_S)
    except CDPError:
        return None


async def frame_loaders(session: PageTarget | ChildTarget, timeout: float) -> dict[str, str]:
    """frame id -> loaderId (its current document) of every frame the session renders."""
    try:
        reply = await session.send("Page.getFrameTree", timeout=timeout)
    except CDPError:
        return {}
    out: dict[str, str] = {}
    stack = [reply.get("frameTree") or {}]
    while stack:
        tree = stack.pop()
        frame = tree.get("frame") or {}
        if frame.get("id"):
            out[frame["id"]] = frame.get("loaderId", "")
        stack.extend(tree.get("childFrames") or ())
    return out


async def tab_loaders(page: PageTarget, timeout: float) -> dict[str, str]:
    sessions: list[PageTarget | ChildTarget] = [page, *page.children.values()]
    out: dict[str, str] = {}
    for loaders in await asyncio.gather(*(frame_loaders(s, timeout) for s in sessions)):
        out.update(loaders)
    return out


async def tab_nodes(layout: LayoutService, page: PageTarget, health: TabHealth,
                    fresh: bool = False) -> TabEntry:
    """The tab's /layout entry (document-space bounds, every node); ``fresh``: a full read.
    Without hit tests: the agent's tree does not use "hittable", and they cost a browser call per
    interactive node in view whenever the page changed."""
    body = await layout.build(LayoutOptions(tab=page.target_id, fresh=fresh, hit_tests=False), health)
    return body["tabs"][0]


async def agent_tree(layout: LayoutService, agent: AgentSession,
                     page: PageTarget, health: TabHealth, timeout: float) -> tuple[TabEntry, list[AgentNode], RefTable]:
    # The documents before and after the read must be the same ones, or a node could be bound
    # to a document it is not in: read again while a navigation commits (bounded).
    loaders = await tab_loaders(page, timeout)
    for _ in range(READ_ATTEMPTS):
        entry = await tab_nodes(layout, page, health)
        after = await tab_loaders(page, timeout)
        if after == loaders:
            break
        loaders = after
    else:
        raise ApiError(409, "navigating", "the page kept navigating while it was read; take the "
                       "snapshot again", headers={"Retry-After": "1"})
    table = agent.refs(page.target_id)
    with gc_paused():       # tens of thousands of small objects: collections that find nothing
        return entry, agent_nodes(entry["layout"]["nodes"], loaders, table), table


def _blocked(text: str) -> Rendered:
    return Rendered(text=text, tree=[], nodes=0, refs=0, total_nodes=0, truncated=False, unchanged=0)


async def take_snapshot(layout: LayoutService, agent: AgentSession, health: TabHealth,
                        page: PageTarget, options: RenderOptions, client: str, scope: str | None,
                        timeout: float, tracker: TargetTracker) -> Snapshot:
    events = agent.events(page.target_id)
    modal = events.modal_state()
    if modal is not None:
        # The page is blocked until the modal state is answered: say so instead of hanging.
        return Snapshot(page, page.url, page.title,
                        _blocked(f"- [modal state: {modal['kind']}: answer it with {modal['answer_with']}]"),
                        modal)
    if not await tracker.committed(page):
        # Likewise while a navigation has not committed (a server that does not answer): the
        # renderer answers nothing until it does, so no ref could be bound or acted on.
        pending = page.pending_navigation or ""
        return Snapshot(page, page.url, page.title,
                        _blocked(f"- [navigation pending: {pending}: the tab still shows its previous "
                                 "document and answers nothing until the navigation ends; take the "
                                 "snapshot again, or navigate elsewhere]"),
                        None, {"url": pending})
    entry, roots, table = await agent_tree(layout, agent, page, health, timeout)
    if scope is not None:
        found = next((n for n in walk(roots) if n.ref == scope), None)
        if found is None:
            raise stale_ref(scope, "is gone") if table.was_given(scope) else unknown_ref(scope)
        roots = [found]
    previous = agent.previous_snapshot(client, page.target_id) if options.diff else None
    with gc_paused():
        rendered = render(roots, options, previous, agent.lines(page.target_id))
    if scope is None:
        agent.remember_snapshot(client, page.target_id, rendered.hashes)
    return Snapshot(page, entry.get("url", page.url), entry.get("title", page.title), rendered, None)
