"""A capture answered for the view now: its nodes filtered, hit-tested and rendered to JSON.

The same answer dict is returned while nothing moved, so the encoder reuses its bytes."""

from __future__ import annotations

import dataclasses
import logging
import os

from sidecar.cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout

from ..records import axtree
from . import hits
from ..output import render
from ..records.axtree import Record
from ..reading.capture import Capture
from ..output.encoding import NodeList
from ..geometry.spaces import Placement, View, chromium_on_wayland, viewport_origin
from ..runtime.memory import gc_paused
from ..output.options import LayoutOptions
from ..output.shapes import Layout
from ..probing.probe import ProbeResult
from ..probing.change_signal import layout_scroll
from ..runtime.seams import Page
from ...cdp.protocol.cdp_commands import PageGetLayoutMetricsResult

log = logging.getLogger(__name__)

MAX_RENDERED_OPTIONS = 8    # answers kept per tab for distinct query options (full, roles=...)


def view_of(probe: ProbeResult, metrics: PageGetLayoutMetricsResult) -> View:
    visual = metrics.get("cssVisualViewport", {})
    device_layout = metrics.get("layoutViewport", {})
    zoom = float(visual.get("zoom") or 1.0)
    dpr = probe.device_pixel_ratio
    window = probe.window(float(device_layout.get("clientWidth", 0)),
                          float(device_layout.get("clientHeight", 0)))
    origin_x, origin_y = viewport_origin(window, dpr / zoom,
                                         shadow_frame=chromium_on_wayland(os.environ.get("CHROMIUM_FLAGS")))
    layout_x, layout_y = layout_scroll(metrics)     # exact: the layout viewport's are rounded
    return View(layout_x=layout_x, layout_y=layout_y,
                visual_x=float(visual.get("pageX", 0)), visual_y=float(visual.get("pageY", 0)),
                visual_width=float(visual.get("clientWidth", 0)),
                visual_height=float(visual.get("clientHeight", 0)),
                pinch_scale=float(visual.get("scale") or 1.0), zoom=zoom, device_pixel_ratio=dpr,
                origin_x=origin_x, origin_y=origin_y)


async def answer(page: Page, capture: Capture, probe: ProbeResult, metrics: PageGetLayoutMetricsResult,
                 options: LayoutOptions) -> Layout:
    """The answer for the view now, with its interactive nodes hit-tested (hits.py): once per
    capture and view; without them when the options say so (a capture's hits stay for others)."""
    if capture.ancestry is None or not options.hit_tests:
        return render_layout(capture, probe, metrics, options)
    view = view_of(probe, metrics)
    if capture.hits is None or capture.hits[0] != view:
        tests = hits.candidates(capture.records, capture.placements, capture.sessions,
                                page.target_id, view)
        try:
            found = await hits.hit_test(page, capture.ancestry, tests, view)
        except (CDPError, CDPTimeout) as exc:
            if isinstance(exc, (CDPSessionClosed, CDPDisconnected)):
                raise
            log.info("hit test failed (%s): hittable unknown", exc)
            found = {}
        capture.hits = (view, found)
    if capture.hits is None or capture.hits[0] != view:
        return render_layout(capture, probe, metrics, options)
    return render_layout(capture, probe, metrics, options, capture.hits[1])


def _selected(capture: Capture, options: LayoutOptions) -> tuple[list[Record], list[Placement | None]]:
    key = (options.interesting, options.roles)
    if key == (False, None):
        return capture.records, capture.placements
    if key not in capture.filtered:
        def keep(record: Record) -> bool:
            if options.interesting and not axtree.is_interesting(record):
                return False
            return options.roles is None or axtree.role_of(record).lower() in options.roles
        records = axtree.filter_tree(capture.records, keep)
        placement_of = {r["nodeId"]: p for r, p in zip(capture.records, capture.placements)}
        capture.filtered[key] = (records, [placement_of[r["nodeId"]] for r in records])
    return capture.filtered[key]


def previous_document(capture: Capture | None, options: LayoutOptions) -> Layout | None:
    """The answer last given from ``capture``, for ``options``, without asking the page: what a
    tab shows while its navigation to a new document is pending (Chromium then holds every call
    to the renderer). None when nothing was answered from it."""
    if capture is None or capture.shown is None:
        return None
    probe, metrics = capture.shown
    known_hits = capture.hits[1] if capture.hits is not None and capture.hits[0] == view_of(probe, metrics) \
        else None
    return render_layout(capture, probe, metrics, options, known_hits)


def render_layout(capture: Capture, probe: ProbeResult, metrics: PageGetLayoutMetricsResult,
                  options: LayoutOptions, hit_results: dict[str, bool | None] | None = None) -> Layout:
    view = view_of(probe, metrics)
    capture.visible = probe.visible
    capture.shown = (probe, metrics)
    # The same answer for ?tab= or every tab, fresh or not.
    options = dataclasses.replace(options, tab=None, fresh=False, order="front")
    last = capture.rendered.get(options)
    if last is not None and last[0] == view:
        return last[1]                       # nothing moved: the same answer, already built
    records, placements = _selected(capture, options)
    truncated = options.max_nodes is not None and len(records) > options.max_nodes
    if truncated and options.max_nodes is not None:
        records = axtree.truncate(records, options.max_nodes)
        placements = placements[:options.max_nodes]
    node_cache = capture.node_caches.get(options)
    if node_cache is None:
        if len(capture.node_caches) >= MAX_RENDERED_OPTIONS:
            capture.node_caches.pop(next(iter(capture.node_caches)))
        node_cache = capture.node_caches[options] = render.NodeCache()
    with gc_paused():
        node_json = render.nodes(records, placements, view, node_cache, options.bounds_space,
                                 hit_results)
    layout: Layout = {
        "source": capture.source,
        "boundsSpace": options.bounds_space,
        "truncated": truncated,
        "nodeCount": len(node_json),
        "viewport": render.viewport_json(metrics, view),
        "nodes": NodeList(node_json, node_cache.decoded),        # last: the encoder splices the nodes' JSON in
    }
    if len(capture.rendered) >= MAX_RENDERED_OPTIONS:
        capture.rendered.pop(next(iter(capture.rendered)))
    capture.rendered[options] = (view, layout)
    return layout
