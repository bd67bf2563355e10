"""Whether a click at a node's click point reaches it: the browser's own hit test, in bulk.

For the interactive nodes with a click point (click_point.py), one ``DOM.getNodeForLocation``
per node, all sent at once over the one connection (the renderer answers them back to back:
one round trip for all), then ``Page.getLayoutMetrics`` behind them: if the page scrolled
meanwhile, the results are not for this view and are all left unknown. A node is hittable when
the node hit is the node itself or a descendant (the snapshot's tree, across same-process
frames). Out-of-process iframes' nodes are not tested (their hits need their own sessions).
"""

from __future__ import annotations

import asyncio

from ..records.axtree import Record, role_of
from ..geometry.click_point import click_point, viewport_point
from ..geometry.spaces import Placement, View
from ..probing.change_signal import layout_scroll, same_scroll
from ..runtime.seams import Session
from ..snapshot.ancestry import Ancestry
from ...cdp.protocol.cdp_commands import PageGetLayoutMetricsResult

MAX_HIT_TESTS = 300          # nodes tested per tab and view; the rest report null
HIT_TIMEOUT = 5.0
INTERACTIVE_ROLES = frozenset({
    "button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox", "listbox",
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
    "spinbutton", "treeitem"})


def candidates(records: list[Record], placements: list[Placement | None], sessions: list[str],
               target_id: str, view: View) -> list[tuple[str, int, tuple[int, int]]]:
    """(nodeId, backendNodeId, click point) of the interactive nodes to test, in order."""
    found = []
    for record, placement, session in zip(records, placements, sessions):
        if placement is None or session != target_id or record["backendDOMNodeId"] is None:
            continue
        if record.get("ignored") or role_of(record) not in INTERACTIVE_ROLES:
            continue
        point = click_point(placement, view)
        if point is not None:
            found.append((record["nodeId"], record["backendDOMNodeId"], point))
            if len(found) >= MAX_HIT_TESTS:
                break
    return found


async def hit_test(session: Session, ancestry: Ancestry, tests: list[tuple[str, int, tuple[int, int]]],
                   view: View) -> dict[str, bool | None]:
    """nodeId -> hittable for ``tests``; every one None when the view moved meanwhile."""
    if not tests:
        return {}
    calls = []
    for _node_id, _backend_id, point in tests:
        x, y = viewport_point(point, view)
        # getNodeForLocation hit-tests the layout view: document coordinates, CSS px.
        x, y = x + view.visual_x, y + view.visual_y
        calls.append(asyncio.ensure_future(session.send("DOM.getNodeForLocation", {
            "x": round(x), "y": round(y), "includeUserAgentShadowDOM": True,
            "ignorePointerEventsNone": False}, timeout=HIT_TIMEOUT)))
    after = asyncio.ensure_future(session.send("Page.getLayoutMetrics", timeout=HIT_TIMEOUT))
    replies = await asyncio.gather(*calls, return_exceptions=True)
    metrics = await after
    if not _same_view(metrics, view):
        return dict.fromkeys((node_id for node_id, _b, _p in tests), None)
    result: dict[str, bool | None] = {}
    for (node_id, backend_id, _point), reply in zip(tests, replies):
        if isinstance(reply, BaseException):
            if isinstance(reply, asyncio.CancelledError):
                raise reply
            result[node_id] = False if "No node found" in str(reply) else None
            continue
        hit = reply.get("backendNodeId")
        result[node_id] = hit is not None and ancestry.within(hit, backend_id)
    return result


def _same_view(metrics: PageGetLayoutMetricsResult, view: View) -> bool:
    visual = metrics.get("cssVisualViewport", {})
    return same_scroll(layout_scroll(metrics), (view.layout_x, view.layout_y)) \
        and same_scroll((float(visual.get("pageX", 0)), float(visual.get("pageY", 0))),
                        (view.visual_x, view.visual_y))
