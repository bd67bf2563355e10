"""A ref back to its live element, or a 409 stale_ref: the ref's frame must still hold the same
document and the element must still be in it. Never another element."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from httpapi.errors import ApiError
from httpapi.json_types import JSONValue

from ..cdp.connection import CDPError
from ..cdp.pages import exception_text
from ..cdp.targets import ChildTarget, PageTarget
from ..layout.runtime.seams import TabHealth
from ..layout import LayoutService
from .layout_node import LayoutNode
from .refs import ElementKey
from .session import AgentSession
from .page_snapshot import frame_loaders, stale_ref, tab_nodes, unknown_ref


@dataclass
class Element:
    ref: str
    key: ElementKey
    page: PageTarget
    session: PageTarget | ChildTarget
    object_id: str

    async def call(self, function: str, *args: JSONValue | Sequence[str], timeout: float,
                   await_promise: bool = False) -> Any:
        """``function`` run with this element as ``this``; its JSON-able result, of the shape the
        function returns (each caller's script says which)."""
        reply = await self.session.send("Runtime.callFunctionOn", {
            "objectId": self.object_id, "functionDeclaration": function,
            "arguments": [{"value": a} for a in args], "returnByValue": True,
            "awaitPromise": await_promise}, timeout=timeout)
        if "exceptionDetails" in reply:
            raise ApiError(422, "script_error", exception_text(reply["exceptionDetails"]))
        return (reply.get("result") or {}).get("value")

    async def call_pending(self, function: str, *args: JSONValue | Sequence[str], timeout: float) -> str | None:
        """``function`` run with this element as ``this``, its promise left pending: the
        promise's object id, awaited later (Runtime.awaitPromise) once input was sent."""
        reply = await self.session.send("Runtime.callFunctionOn", {
            "objectId": self.object_id, "functionDeclaration": function,
            "arguments": [{"value": a} for a in args]}, timeout=timeout)
        return (reply.get("result") or {}).get("objectId")


async def resolve(agent: AgentSession, page: PageTarget, ref: str, timeout: float) -> Element:
    table = agent.refs(page.target_id)
    key = table.lookup(ref)
    if key is None:
        raise stale_ref(ref, "belongs to a document that is gone") if table.was_given(ref) else unknown_ref(ref)
    session: PageTarget | ChildTarget | None = (
        page if key.target_id == page.target_id else page.children.get(key.target_id))
    # A frame or document that is not the current one keeps its refs (not forgotten here): the
    # back/forward cache may restore it, and then all its refs are valid again, not all but this.
    if session is None:
        raise stale_ref(ref, "was in a frame that is gone")
    loaders = await frame_loaders(session, timeout)
    if loaders.get(key.frame_id) != key.loader_id:
        raise stale_ref(ref, "belongs to a document that is gone (the page or its frame navigated)")
    try:
        resolved = await session.send("DOM.resolveNode", {"backendNodeId": key.backend_node_id},
                                      timeout=timeout)
    except CDPError:
        table.forget(key)
        raise stale_ref(ref, "names an element that is gone") from None
    element = Element(ref, key, page, session, resolved["object"]["objectId"])
    if not await element.call("function () { return this.isConnected; }", timeout=timeout):
        table.forget(key)
        raise stale_ref(ref, "names an element that was removed from the page")
    return element


async def element_node(layout: LayoutService, element: Element, health: TabHealth, fresh: bool = False) -> LayoutNode:
    """The element's /layout node now (its screen box, its viewport box)."""
    entry = await tab_nodes(layout, element.page, health, fresh)
    for node in entry["layout"]["nodes"]:
        if node.get("backendDOMNodeId") == element.key.backend_node_id and \
                node.get("frameId") == element.key.frame_id:
            return node
    raise ApiError(409, "not_rendered", f"ref {element.ref} is in the page but has no box (hidden, "
                   "display:none or outside the accessibility tree)", field="ref")
