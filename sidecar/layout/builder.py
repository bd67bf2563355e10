"""/layout: every tab's accessibility tree with bounds in document, viewport and screen space.

Per tab and request: one in-page probe (window metrics + change signal, see probe.py) and
Page.getLayoutMetrics, concurrently. When the signal matches the tab's cached capture, the nodes
and their scroll-independent placements are reused and only the viewport and screen bounds are
recomputed; otherwise the tab is captured again: the AX trees and DOM snapshots of the page and
each of its out-of-process iframes, all requested at once over the one connection.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from desktopd.web.errors import ApiError
from sidecar.cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from sidecar.chromium_watch import ChromiumUnavailable
from sidecar.errors import (LayoutUnavailable, PageChanging, RendererCrashed, TabNotFound,
                            TabUnresponsive, as_api_error)

from . import axtree, hits, patch, render, sections
from .axtree import Record
from .dom_fallback import dom_records
from .encoding import NodeList, encoder_for, options_key
from .geometry import Placement, View, viewport_origin
from .hits import Ancestry
from .memory import gc_paused, release_later
from .options import LayoutOptions
from .probe import PROBE_PARAMS, ProbeResult, document_token, parse_probe
from .refresh import EagerRefresher
from .restyle import RenderState
from .snapshot import CAPTURE_PARAMS, TOP_LEVEL, DocumentPlacement, Snapshot

log = logging.getLogger(__name__)

TAB_TIMEOUT = 20.0          # a whole tab's layout; each CDP call also has the client's timeout
CAPTURE_ATTEMPTS = 3        # a page that navigates during a capture is captured again
MAX_RENDERED_OPTIONS = 8    # answers kept per tab for distinct query options (full, roles=...)
EVERY_NODE = LayoutOptions()   # the options of an answer with every node (as _render keys them)


class PageChanged(PageChanging):
    """The document changed while it was being captured."""


@dataclass
class Capture:
    """Everything about a tab that does not depend on scroll: reused while the signal holds."""

    signal: tuple
    records: list[Record]
    placements: list[Placement | None]
    source: str                                  # "accessibility" or "dom"
    sticky: bool                                 # position:sticky content moves with scroll
    sessions: list[str]                          # per record: the target id whose DOM holds it
    structure: tuple = ()                        # the signal without scroll counts
    filtered: dict[tuple, tuple[list[Record], list[Placement | None]]] = field(default_factory=dict)
    # Per query options: the last answer and the view it was built for. Returning the very same
    # dict while nothing moved lets the route reuse its encoded bytes (sidecar.layout.encoding).
    rendered: dict[LayoutOptions, tuple[View, dict[str, Any]]] = field(default_factory=dict)
    # Whether the tab was the one shown in its window at the last probe (the tab entry's
    # "visible"; outside the layout so a tab switch does not re-encode it).
    visible: bool | None = None
    # Incremental updates (patch.py): only for a tab of one document in one session, read
    # through the accessibility tree. ``frames`` is its change signal when it was taken.
    patchable: bool = False
    sectioned: bool = False                      # read in sections (sections.py), not whole
    frame_id: str = ""
    frames: tuple[str, ...] = ()
    render: RenderState | None = None            # its snapshot's rendering (restyle.py)
    wide: bool = False                           # a patch after a page-wide change
    restyled: int = 0                            # a patch: re-rendered elements it read again
    # Per query options, the last answer's nodes and their JSON: handed on to the tab's next
    # capture, which reuses those whose record and box did not change (_nodes).
    node_caches: dict[LayoutOptions, render.NodeCache] = field(default_factory=dict)
    # The records' JSON made during a read in sections; used (then dropped) by the first answer.
    record_json: render.RecordJson | None = None
    # The last check that found the page as captured (then the signal held): a request that
    # arrived before it was sent needs no check of its own (_locked_tab_layout).
    checked: Probed | None = None
    # The tab's own session's tree (hits.py), and the last hit test's view and results.
    ancestry: Ancestry | None = None
    hits: tuple[View, dict[str, bool | None]] | None = None
    # The top-level document's scroll (CSS px) when its snapshot was taken: what sticky
    # placements are right for (_scroll_holds).
    scroll: tuple[float, float] | None = None
    view_key: tuple[float, float, float] | None = None     # _view_key of its after-probe


@dataclass
class _TrackerState:
    """Per target tracker (i.e. per Chromium connection): captures and the eager refresher."""

    cache: dict[str, Capture]
    refresher: EagerRefresher | None
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("captures", "sectioned", "patches", "wide", "restyled", "rescans"), 0))
    # full reads (of which read in sections), incremental ones (of which after a page-wide
    # change; and the re-rendered elements they read too), scroll-only


_states: weakref.WeakKeyDictionary[Any, _TrackerState] = weakref.WeakKeyDictionary()


def _state_for(conn: Any, tracker: Any) -> _TrackerState:
    state = _states.get(tracker) if _weakly_referable(tracker) else None
    if state is None:
        state = _TrackerState(cache={}, refresher=None)
        if hasattr(conn, "on") and hasattr(tracker, "page_for_session"):
            cache, counts = state.cache, state.counts
            # Weak: this state is the tracker's value in a WeakKeyDictionary.
            tracker_ref = weakref.ref(tracker)

            async def refresh_tab(page: Any, options: LayoutOptions, signal: str) -> None:
                known = cache.get(page.target_id)
                if signal and known is not None and signal in known.frames:
                    return      # the request that ran meanwhile captured this change already
                layout = await asyncio.wait_for(_tab_layout(page, options, cache, counts), TAB_TIMEOUT)
                owner = tracker_ref()
                if owner is not None:   # the HTTP body too: the next request just sends bytes
                    encoder_for(owner).prime(page.target_id, options_key(options), layout)

            state.refresher = EagerRefresher(conn, tracker, refresh_tab)
        if _weakly_referable(tracker):
            _states[tracker] = state
    return state


def _weakly_referable(value: Any) -> bool:
    try:
        weakref.ref(value)
    except TypeError:
        return False
    return True


class TabHealthLike(Protocol):
    """sidecar.tab_health.TabHealth as the builder uses it."""
    budget_s: float

    def unresponsive(self, target_id: str) -> bool: ...

    def mark(self, page: Any) -> None: ...


async def build_layout(conn: Any, tracker: Any, options: LayoutOptions,
                       health: TabHealthLike | None = None) -> dict[str, Any]:
    """The /layout body. Raises a domain exception (sidecar/errors.py) for a bad ``tab``, or when the one asked for fails.
    With ``health``, a tab that already stopped answering is reported at once, and one that does
    not answer within the health's budget is reported and marked, while the others answer."""
    if not getattr(conn, "connected", True):
        raise ChromiumUnavailable("not connected to Chromium")
    if options.tab is not None:
        page = tracker.find_page(options.tab)
        if page is None:
            raise TabNotFound(options.tab, field="tab")
        pages = [page]
    else:
        pages = tracker.pages()
    state = _state_for(conn, tracker)
    live = {page.target_id for page in tracker.pages()}
    for stale in set(state.cache) - live:
        state.cache.pop(stale, None)
    if state.refresher is not None:
        state.refresher.forget(live)
    # Titles are re-read alongside (Chromium sends no event when a page sets document.title):
    # each tab's entry names its current title.
    titles = _or_exception(tracker.refresh_titles()) if hasattr(tracker, "refresh_titles") else _nothing()
    _, *results = await asyncio.gather(titles, *(_tab_or_error(page, options, state, health) for page in pages))
    if options.tab is not None and isinstance(results[0], Exception):
        raise results[0]
    tabs = []
    for page, result in zip(pages, results):
        entry: dict[str, Any] = {"id": page.target_id, "url": page.url, "title": page.title}
        if isinstance(result, Exception):
            # The reference's shape ({"error": message}) with our error object beside it, in
            # the HTTP form a route would give the same failure (sidecar/errors.py).
            error = as_api_error(result)
            entry.update(visible=None, layout=failed_layout(error), error=error.body())
        else:
            capture = state.cache.get(page.target_id)
            entry["visible"] = None if capture is None else capture.visible
            entry["layout"] = result
            if state.refresher is not None and not options.inline_text_boxes:
                state.refresher.asked(page, options, state.cache.get(page.target_id))
        tabs.append(entry)
    if options.order == "front":
        # The tab in front first (as CDP's /json lists them), then the rest in tab-strip order.
        tabs.sort(key=lambda entry: entry["visible"] is not True)
    return {"tabs": tabs}


def failed_layout(error: ApiError) -> dict[str, Any]:
    """A tab's "layout" when it could not be read: the reference's {"error": message}."""
    detail = error.detail if isinstance(error.detail, str) else error.error
    return {"error": f"{error.error}: {detail}", "code": error.error}


async def _tab_or_error(page: Any, options: LayoutOptions, state: _TrackerState,
                        health: TabHealthLike | None) -> dict[str, Any] | Exception:
    """The tab's layout, or the domain exception (sidecar/errors.py) saying why not."""
    if health is not None and health.unresponsive(page.target_id) and not getattr(page, "crashed", False):
        return TabUnresponsive("the tab stopped answering (a script that does not yield, or a "
                               "navigation that has not committed); its layout is read again once it "
                               "answers")
    budget = min(TAB_TIMEOUT, health.budget_s) if health is not None else TAB_TIMEOUT
    try:
        return await asyncio.wait_for(_locked_tab_layout(page, options, state), budget)
    except asyncio.TimeoutError:
        if health is not None:
            health.mark(page)
        return TabUnresponsive(f"no layout within {budget:g} s")
    except Exception as exc:     # CDP errors and the rest: an error for this tab only
        if isinstance(exc, CDPTimeout) and health is not None:
            health.mark(page)
        return _classify(page, exc)


async def _locked_tab_layout(page: Any, options: LayoutOptions, state: _TrackerState) -> dict[str, Any]:
    """One layout of a tab at a time: a request waits for a background refresh (or another
    request) in flight. If that one's check that the page is as captured went out after this
    request arrived, the check holds for this request too: the answer comes from the capture
    at once. Otherwise the request checks freshness itself, usually finding the capture warm."""
    if state.refresher is None:
        return await _tab_layout(page, options, state.cache, state.counts)
    arrived = time.monotonic()
    async with state.refresher.state(page.target_id).lock:
        capture = state.cache.get(page.target_id)
        checked = capture.checked if capture is not None else None
        if checked is not None and checked.sent_at > arrived and not options.fresh \
                and not options.inline_text_boxes \
                and not getattr(page, "crashed", False):
            return await _answer(page, capture, checked.probe, checked.metrics, options)
        return await _tab_layout(page, options, state.cache, state.counts)


def _classify(page: Any, exc: Exception) -> Exception:
    """What a failed read of one tab means, as a domain exception (HTTP: sidecar/errors.py)."""
    if getattr(page, "crashed", False):
        return RendererCrashed("the tab's renderer crashed; it is reloaded (or POST /tabs/{id}/reload)")
    if isinstance(exc, CDPTimeout):
        return TabUnresponsive(str(exc))      # the read of this tab did not answer
    if isinstance(exc, (CDPSessionClosed, CDPDisconnected, PageChanging, ApiError)):
        return exc
    if isinstance(exc, (CDPError, ValueError)):
        # Chromium refused a call (e.g. "Frame not found" as the page navigates away).
        return LayoutUnavailable(str(exc))
    log.exception("layout of tab %s failed", getattr(page, "target_id", "?"))
    return exc


async def _tab_layout(page: Any, options: LayoutOptions, cache: dict[str, Capture],
                      counts: dict[str, int]) -> dict[str, Any]:
    if getattr(page, "crashed", False):
        raise RendererCrashed("the tab's renderer crashed; it is reloaded (or POST /tabs/{id}/reload)")
    children = list(getattr(page, "children", {}).values())
    with gc_paused():            # bounded: the tab's layout has a timeout (TAB_TIMEOUT)
        return await _tab_layout_attempts(page, options, cache, children, counts)


async def _tab_layout_attempts(page: Any, options: LayoutOptions, cache: dict[str, Capture],
                               children: list[Any], counts: dict[str, int]) -> dict[str, Any]:
    if options.inline_text_boxes:
        return await _text_box_layout(page, children, options)
    for attempt in range(CAPTURE_ATTEMPTS):
        capture = None if options.fresh else cache.get(page.target_id)
        # Asked along with the probe (after it: roots cover every change the probe counts), so
        # a patch does not wait for one more round trip.
        take = patch.take_params(capture.frames[0]) \
            if capture is not None and capture.patchable and len(capture.frames) == 1 else None
        probed = await _probe(page, children, take)
        probe, metrics, child_probes, roots_reply = probed[:4]
        signal = _signal(probe, metrics, child_probes, children)
        if capture is not None and signal is not None and capture.signal == signal \
                and _scroll_holds(capture, metrics):
            capture.checked = probed
            return await _answer(page, capture, probe, metrics, options)
        structure = _signal(probe, metrics, child_probes, children, scrolls=False)
        after_call = None
        try:
            if capture is not None and structure is not None and capture.structure == structure:
                # Only scrolling inside the page: same nodes, new boxes from fresh snapshots.
                capture = await _replace(page, children, probe.device_pixel_ratio, capture)
                kind = "rescans"
            else:
                patched = None
                if capture is not None and roots_reply is not None and _patchable(capture, probe, children) \
                        and not probe.popup_changed:
                    patched = await _patched(page, probe.device_pixel_ratio, capture, roots_reply)
                if patched is not None:
                    capture, after_call = patched
                    kind = "patches"
                else:
                    # ?fresh=true reads the tree whole: the reference the other reads are held to.
                    # A page that cannot be cached (always animating) is read as ?fresh=true
                    # reads it: the sections' machinery only pays off for a capture kept.
                    capture, after_call = await _capture(page, children, probe.device_pixel_ratio,
                                                         in_sections=not options.fresh
                                                         and not _animating(probe, child_probes)
                                                         and not probe.popup_changed,
                                                         view=_view(probe, metrics))
                    kind = "captures"
        except PageChanged:
            continue
        # Trust the capture only if nothing changed while it was taken.
        checked = await after_call if after_call is not None else None
        if not isinstance(checked, tuple):          # none sent ahead, or it failed: ask now
            checked = await _probe(page, children)
        after, after_metrics, after_children = checked[:3]
        before_frames = (probe.frames, [c.frames if c else None for c in child_probes])
        after_frames = (after.frames, [c.frames if c else None for c in after_children])
        if signal is not None and before_frames != after_frames:
            continue
        if not _scroll_holds(capture, after_metrics):
            if attempt + 1 < CAPTURE_ATTEMPTS:
                continue        # scrolled during the read: sticky boxes are of another scroll
            # Still scrolling (a smooth wheel scroll lasts longer than three reads): answer for
            # the scroll the snapshot was taken at, true at that instant, and keep nothing.
            return await _answer(page, capture, after, _at_scroll(after_metrics, capture.scroll), options)
        after_signal = _signal(after, after_metrics, after_children, children)
        cacheable = after_signal is not None and (signal is not None or _untouched(after_frames))
        capture.signal = after_signal if cacheable else (object(),)
        capture.structure = _signal(after, after_metrics, after_children, children, scrolls=False) \
            if cacheable else (object(),)
        capture.frames = after.frames if cacheable else ()
        capture.view_key = _view_key(after)
        capture.checked = checked if cacheable else None
        previous = cache.get(page.target_id)
        if previous is not None and previous is not capture:
            # Those the capture made itself (sections rendered ahead) win over the handed-on.
            capture.node_caches = {**previous.node_caches, **capture.node_caches}
            release_later(previous)
        cache[page.target_id] = capture
        counts[kind] = counts.get(kind, 0) + 1
        if capture.sectioned:
            counts["sectioned"] = counts.get("sectioned", 0) + 1
        if kind == "patches":
            counts["wide"] = counts.get("wide", 0) + capture.wide
            counts["restyled"] = counts.get("restyled", 0) + capture.restyled
        return await _answer(page, capture, after, after_metrics, options)
    raise PageChanged("the page kept changing while its layout was captured; retry")


async def _text_box_layout(page: Any, children: list[Any], options: LayoutOptions) -> dict[str, Any]:
    """A whole read that keeps Chromium's InlineTextBox nodes, placed at their line boxes. Never
    cached: the cached reads' records leave those nodes out, and few requests ask for them.
    Read again when the page changed while it was read, as the cached path does."""
    for _attempt in range(CAPTURE_ATTEMPTS):
        probe, metrics, child_probes = (await _probe(page, children))[:3]
        capture, _after = await _capture(page, children, probe.device_pixel_ratio, in_sections=False,
                                         inline_text_boxes=True)
        after, after_metrics, after_children = (await _probe(page, children))[:3]
        if (probe.frames, [c.frames if c else None for c in child_probes]) == \
                (after.frames, [c.frames if c else None for c in after_children]):
            return await _answer(page, capture, after, after_metrics, options)
    raise PageChanged("the page kept changing while its layout was captured; retry")


class Probed(NamedTuple):
    probe: ProbeResult
    metrics: dict
    child_probes: list[ProbeResult | None]
    take_reply: dict | None
    sent_at: float            # time.monotonic() before its calls went out


def _probe(page: Any, children: list[Any], take: dict[str, Any] | None = None,
           ) -> asyncio.Future[Probed]:
    """The page's and its iframes' probes and the layout metrics; and ``take`` (patch.py)
    evaluated right after them when given (its reply, else None). Its calls are on their way
    at the loop's next turn, in order behind what was sent before (the renderer answers them
    after that), even while the caller keeps the loop busy."""
    # A child iframe that detaches mid-probe only costs the cache, never the request.
    calls = [page.send("Runtime.evaluate", PROBE_PARAMS), page.send("Page.getLayoutMetrics"),
             *(_or_exception(child.send("Runtime.evaluate", PROBE_PARAMS)) for child in children)]
    if take is not None:
        calls.append(_or_exception(page.send("Runtime.evaluate", take)))
    return asyncio.ensure_future(_probed([asyncio.ensure_future(call) for call in calls],
                                         take is not None, time.monotonic()))


async def _probed(calls: list[asyncio.Future], with_take: bool, sent_at: float) -> Probed:
    probe_reply, metrics, *replies = await asyncio.gather(*calls)
    take_reply = replies.pop() if with_take else None
    return Probed(parse_probe(probe_reply), metrics, [_parse_or_none(reply) for reply in replies],
                  None if isinstance(take_reply, BaseException) else take_reply, sent_at)


def _untouched(frames: tuple[tuple[str, ...], list]) -> bool:
    """True when every tracker, installed by the probe before the capture, counted no change."""
    main, children = frames
    every = list(main) + [f for child in children for f in (child or ("?",))]
    return all(f == "x" or f.split(":")[1:] == ["0", "0"] for f in every)


def _parse_or_none(reply: Any) -> ProbeResult | None:
    if isinstance(reply, BaseException):
        return None
    try:
        return parse_probe(reply)
    except ValueError:
        return None


def _signal(probe: ProbeResult, metrics: dict, child_probes: list[ProbeResult | None],
            children: list[Any], *, scrolls: bool = True) -> tuple | None:
    """A key that changes whenever cached placements could be wrong, or None (never cache).
    Without ``scrolls``: a key that changes whenever the nodes themselves could be."""
    if not probe.trackable or any(c is None or not c.trackable for c in child_probes):
        return None
    unreachable = probe.unreachable_frames + sum(c.unreachable_frames for c in child_probes if c)
    if unreachable > len(children):
        return None          # a cross-origin frame in this process: its changes are invisible
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    frames = (lambda p: p.frames) if scrolls else (lambda p: p.structure)
    return (frames(probe), tuple(sorted(c.target_id for c in children)),
            tuple(frames(c) for c in child_probes if c),
            layout.get("clientWidth"), layout.get("clientHeight"), visual.get("zoom"),
            probe.device_pixel_ratio, probe.inner_width, probe.inner_height)


def _scroll_holds(capture: Capture, metrics: dict) -> bool:
    """Sticky content moves with scroll: a capture with some is right only at the scroll its
    snapshot was taken at (not the one read after it: a scroll during the read must not leave
    sticky boxes cached for a scroll position they are not right for)."""
    if not capture.sticky or capture.scroll is None:
        return True
    layout = metrics.get("cssLayoutViewport", {})
    return abs(float(layout.get("pageX", 0)) - capture.scroll[0]) < 1.0 \
        and abs(float(layout.get("pageY", 0)) - capture.scroll[1]) < 1.0


def _at_scroll(metrics: dict, scroll: tuple[float, float] | None) -> dict:
    """``metrics`` (Page.getLayoutMetrics) as they were at the top-level ``scroll``."""
    if scroll is None:
        return metrics
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    dx = scroll[0] - float(layout.get("pageX", 0))
    dy = scroll[1] - float(layout.get("pageY", 0))
    return {**metrics,
            "cssLayoutViewport": {**layout, "pageX": scroll[0], "pageY": scroll[1]},
            "cssVisualViewport": {**visual, "pageX": float(visual.get("pageX", 0)) + dx,
                                  "pageY": float(visual.get("pageY", 0)) + dy}}


def _scroll(snapshot: Snapshot) -> tuple[float, float] | None:
    """The top-level document's scroll in the snapshot, CSS px."""
    if not snapshot.documents:
        return None
    top = snapshot.documents[0]
    return top.scroll_x, top.scroll_y


# -- capture -----------------------------------------------------------------------------------

async def _capture(page: Any, children: list[Any], dpr: float, *, in_sections: bool = True,
                   view: View | None = None, inline_text_boxes: bool = False) -> tuple[Capture, Any]:
    """A full read of the tab, and the after-probe when one was sent behind its reads (else
    None: the caller probes again). ``view``: the tab's view now, to render nodes ahead for.
    ``inline_text_boxes``: keep Chromium's InlineTextBox nodes, each placed at its line box."""
    if in_sections and not children:
        capture, after_call = await _sectioned_capture(page, dpr, view)
        if capture is not None:
            return capture, after_call
        if after_call is not None:
            await after_call
    frame_tree_call = page.send("Page.getFrameTree")
    snapshot_call = _parsed_snapshot(page, dpr)
    # Enabled, the domain keeps node ids stable between calls, and a later patch (patch.py)
    # can read a node's ancestors. Idempotent and cheap (~1 ms).
    enable_call = _or_exception(page.send("Accessibility.enable")) if not children else _nothing()
    ax_call = page.send("Accessibility.getFullAXTree")
    child_calls = [_capture_child(page, child, dpr, inline_text_boxes=inline_text_boxes)
                   for child in children]
    frame_tree, snapshot, enabled, ax_reply, *child_results = await asyncio.gather(
        frame_tree_call, snapshot_call, enable_call, _or_exception(ax_call), *child_calls)
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    if not _of_frame(snapshot, main_frame):
        raise PageChanged("the snapshot is of another document than the frame tree")
    source = "accessibility"
    sessions: list[tuple[str, list[Record]]] = []
    records, source = await _session_records(page, snapshot, main_frame, ax_reply, "",
                                             inline_text_boxes=inline_text_boxes)
    sessions.append((page.target_id, records))

    # Out-of-process iframes, parents before children, each placed by its owner element.
    found = {child.target_id: result for child, result in zip(children, child_results) if result}
    placed = _place_sessions(page, snapshot, children,
                             {tid: (snap, owner) for tid, (snap, _recs, owner, _src) in found.items()})
    parents = {child.target_id: child.parent_target_id for child in children}
    for target_id in placed:                 # parents first: an owner's node exists already
        if target_id not in found:
            continue
        _snapshot, child_records, owner_id, child_source = found[target_id]
        if child_records is None:
            continue
        if child_source == "dom":
            source = "dom"
        # backendNodeIds are per renderer: look for the owner in the parent's session only.
        parent_records = next((recs for key, recs in sessions if key == parents[target_id]), [])
        _attach(child_records, owner_id, parent_records)
        sessions.append((target_id, child_records))

    # The parsed replies (~100,000 objects at 2,000 elements) are freed after the answer.
    release_later(ax_reply, snapshot, child_results)
    with gc_paused():
        ordered = axtree.preorder([r for _key, recs in sessions for r in recs])
        session_of = {r["nodeId"]: key for key, recs in sessions for r in recs}
        keys = [session_of[r["nodeId"]] for r in ordered]
        patchable = (source == "accessibility" and not children and len(snapshot.documents) == 1
                     and not isinstance(enabled, BaseException) and bool(ordered)
                     and not inline_text_boxes)
        placements = _placements(ordered, keys, placed)
        if inline_text_boxes:
            _place_text_boxes(ordered, keys, placements, placed)
        return Capture(signal=(), records=ordered, placements=placements,
                       source=source, sticky=_sticky(placed), sessions=keys,
                       patchable=patchable, frame_id=main_frame,
                       render=snapshot.render_state() if patchable else None,
                       ancestry=Ancestry(snapshot.ancestry()), scroll=_scroll(snapshot)), None


async def _sectioned_capture(page: Any, dpr: float, view: View | None,
                             ) -> tuple[Capture | None, Any]:
    """A tab of one document read in sections (sections.py), and the after-probe sent behind
    its reads; (None, None) when the page reads whole."""
    # The domain first (the ancestor reads need it), then the page's choice of sections.
    enabled, frame_tree, reply = await asyncio.gather(
        _or_exception(page.send("Accessibility.enable")), page.send("Page.getFrameTree"),
        _or_exception(page.send("Runtime.evaluate", sections.SECTIONS_PARAMS)))
    groups = None if isinstance(enabled, BaseException) or isinstance(reply, BaseException) \
        else patch.parse_groups(reply)
    if not groups:
        return None, None
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    # The snapshot first: it lays the page out once, and its parse overlaps the first section.
    # The check that nothing changed meanwhile last, answered while the sections are put in order.
    snapshot_call = asyncio.ensure_future(_parsed_snapshot(page, dpr))
    reads = sections.start_reads(page, groups)
    after_call = asyncio.ensure_future(_or_exception(_probe(page, [])))
    ahead = _Ahead(page, snapshot_call, view)
    records = await sections.sectioned_records(page, reads, main_frame, ahead.add)
    snapshot = await snapshot_call
    release_later(reads)
    capture = _one_document(page, records, snapshot, main_frame, sectioned=True,
                            placed=ahead.placed, known=ahead.placement_of)
    if capture is None:
        return None, after_call
    if reads.late:              # a section read again from its ancestor, after that check
        await after_call
        after_call = None
    capture.record_json = ahead.made
    if ahead.nodes.entries:
        capture.node_caches[EVERY_NODE] = ahead.nodes
    return capture, after_call


class _Ahead:
    """The answer's work done while Chromium still makes the next sections: each section's
    records as JSON and, once the snapshot is in, with their bounds for the view of the request
    (render.nodes then finds them all made, unless the view changed meanwhile)."""

    def __init__(self, page: Any, snapshot_call: asyncio.Future, view: View | None) -> None:
        self.page, self.snapshot_call, self.view = page, snapshot_call, view
        self.made: render.RecordJson = {}
        self.nodes = render.NodeCache(view=view)
        self.placed: Placed | None = None
        self.placement_of: dict[str, Placement | None] = {}

    def add(self, section: list[Record]) -> None:
        self.made.update(render.record_json(section))
        call = self.snapshot_call
        if self.view is None or not call.done() or call.cancelled() or call.exception() is not None:
            return
        if self.placed is None:
            self.placed = _place_sessions(self.page, call.result(), [], {})
        placements = _placements(section, [self.page.target_id] * len(section), self.placed)
        self.placement_of.update(zip([record["nodeId"] for record in section], placements))
        part = render.NodeCache(view=self.view)
        render.nodes(section, placements, self.view, part, self.made)
        self.nodes.entries.update(part.entries)


def _view_key(probe: ProbeResult) -> tuple[float, float, float]:
    return probe.device_pixel_ratio, probe.inner_width, probe.inner_height


def _patchable(capture: Capture, probe: ProbeResult, children: list[Any]) -> bool:
    """Whether the tab is still the one document (same token) the capture was taken of."""
    if not capture.patchable or children or len(probe.frames) != 1 or len(capture.frames) != 1:
        return False
    if capture.view_key != _view_key(probe):
        # Zoom, the device scale or the window's size changed: what overflows (and so which
        # boxes are scroll containers in the accessibility tree) can change anywhere.
        return False
    return document_token(probe.frames[0]) == document_token(capture.frames[0])


async def _patched(page: Any, dpr: float, capture: Capture, roots_reply: dict,
                   ) -> tuple[Capture, Any] | None:
    """The capture with only the changed subtrees read again (patch.py) and fresh boxes, and
    the after-probe already sent behind its reads (None: the caller probes again); None when
    the change needs a full capture. ``roots_reply`` is the take's (see _probe)."""
    take = patch.parse_take(roots_reply)
    before = capture.render
    if take is None or before is None:
        return None
    # The renderer answers in order: the accessibility reads first, so splicing them in
    # overlaps the snapshot, the renderer's longest job; then the check that nothing changed
    # meanwhile, which is answered by the time the nodes are placed.
    reads = patch.start_reads(page, take.roots, take.top)
    snapshot_call = asyncio.ensure_future(_parsed_snapshot(page, dpr, boxes=False))
    after_call = asyncio.ensure_future(_or_exception(_probe(page, [])))
    spliced = asyncio.ensure_future(patch.patched_records(page, capture.records, reads, capture.frame_id))
    # CSS can re-render more than the changed nodes (a class on <body>, :has(), :focus-within):
    # the rendering tells what (restyle.py). Its last side is worked out while Chromium makes
    # the new snapshot (once the calls above are on their way: one turn of the loop sends them).
    await asyncio.sleep(0)
    before.signatures()
    snapshot = await snapshot_call
    render = snapshot.render_state()
    restyled = None if render is None else render.restyled_roots(before, take.roots)
    records = await spliced         # right unless more was re-rendered, as is most often
    if restyled is None:
        release_later(snapshot)
        await after_call
        return None
    if restyled:                    # spliced again with those, as one tree that must add up
        await after_call            # (answered long ago) checked anew, behind these reads:
        patch.add_reads(page, reads, restyled)
        reads.late = False          # reads from an ancestor so far were all sent before it
        after_call = asyncio.ensure_future(_or_exception(_probe(page, [])))
        await asyncio.sleep(0)      # (all sent) the snapshot's boxes are read meanwhile
        snapshot.read_boxes()
        records = await patch.patched_records(page, capture.records, reads, capture.frame_id)
    patched = _one_document(page, records, snapshot, capture.frame_id)
    if patched is None:
        await after_call
        return None
    patched.wide, patched.restyled = take.top is not None, len(restyled)
    # A root read again from its ancestor, or a re-rendered one, was read after that check:
    # check once more.
    return patched, (None if reads.late else after_call)


def _one_document(page: Any, records: list[Record] | None, snapshot: Snapshot, frame_id: str,
                  *, sectioned: bool = False, placed: Placed | None = None,
                  known: dict[str, Placement | None] | None = None) -> Capture | None:
    """A capture of a tab of one document read through its accessibility tree (patched or in
    sections), placed by ``snapshot``; None without records, or when the snapshot holds more
    than that document or another one. ``placed`` and ``known``: that snapshot's documents
    placed, and placements by nodeId, worked out already (_Ahead)."""
    release_later(snapshot)
    if records is None or len(snapshot.documents) != 1 or not _of_frame(snapshot, frame_id):
        return None
    if placed is None or placed[page.target_id][0] is not snapshot:
        placed, known = _place_sessions(page, snapshot, [], {}), None
    keys = [page.target_id] * len(records)
    with gc_paused():
        return Capture(signal=(), records=records, placements=_placements(records, keys, placed, known),
                       source="accessibility", sticky=_sticky(placed), sessions=keys,
                       patchable=True, sectioned=sectioned, frame_id=frame_id,
                       render=snapshot.render_state(), ancestry=Ancestry(snapshot.ancestry()),
                       scroll=_scroll(snapshot))


def _of_frame(snapshot: Snapshot, frame_id: str) -> bool:
    """Whether the snapshot's top document is the frame's (not one it navigated to since)."""
    return not snapshot.documents or snapshot.documents[0].frame_id in ("", frame_id)


async def _parsed_snapshot(session: Any, dpr: float, *, boxes: bool = True) -> Snapshot:
    """A session's DOM snapshot, parsed (with its ``boxes`` read) as soon as it arrives: in a
    full read the renderer answers it before the accessibility tree asked for at the same
    time, so that work overlaps the wait."""
    reply = await session.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS)
    with gc_paused():
        snapshot = Snapshot(reply, dpr)
        if boxes:
            snapshot.read_boxes()
        return snapshot


async def _replace(page: Any, children: list[Any], dpr: float, capture: Capture) -> Capture:
    """The same nodes with boxes from fresh DOM snapshots (after scrolling inside the page)."""
    frame_tree, snapshot_reply, *child_results = await asyncio.gather(
        page.send("Page.getFrameTree"), page.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS),
        *(_capture_child(page, child, dpr, accessibility=False) for child in children))
    with gc_paused():
        snapshot = Snapshot(snapshot_reply, dpr)
    if not _of_frame(snapshot, frame_tree["frameTree"]["frame"]["id"]):
        raise PageChanged("the snapshot is of another document than the frame tree")
    found = {child.target_id: (result[0], result[2]) for child, result in zip(children, child_results) if result}
    placed = _place_sessions(page, snapshot, children, found)
    with gc_paused():
        # The same nodes: a patch can still start from them (the rendering is the new one's).
        return Capture(signal=(), records=capture.records,
                       placements=_placements(capture.records, capture.sessions, placed),
                       source=capture.source, sticky=_sticky(placed), sessions=capture.sessions,
                       patchable=capture.patchable, frame_id=capture.frame_id,
                       render=snapshot.render_state() if capture.patchable else None,
                       ancestry=Ancestry(snapshot.ancestry()), scroll=_scroll(snapshot))


Placed = dict[str, tuple[Snapshot, dict[int, DocumentPlacement]]]


def _place_sessions(page: Any, snapshot: Snapshot, children: list[Any],
                    found: dict[str, tuple[Snapshot, int | None]]) -> Placed:
    """Every session's documents placed in the tab: the page's, then each out-of-process iframe
    through its owner element in its parent (parents first, so nesting works)."""
    placed: Placed = {page.target_id: (snapshot, snapshot.placements(TOP_LEVEL))}
    pending = [child for child in children if child.target_id in found]
    progressed = True
    while pending and progressed:
        progressed = False
        for child in list(pending):
            parent = placed.get(child.parent_target_id)
            if parent is None:
                continue
            pending.remove(child)
            progressed = True
            child_snapshot, owner_id = found[child.target_id]
            root = _oopif_root(parent[0], parent[1], owner_id, child_snapshot)
            placed[child.target_id] = (child_snapshot, child_snapshot.placements(root) if root else {})
    return placed


_UNKNOWN = object()


def _placements(records: list[Record], keys: list[str], placed: Placed,
                known: dict[str, Placement | None] | None = None) -> list[Placement | None]:
    """Each record's placement (``keys``: each one's session); ``known``: some already worked
    out from ``placed``, by nodeId (the same objects, so the render cache compares identities)."""
    if not known and (not keys or keys.count(keys[0]) == len(keys)):      # one session
        session = placed.get(keys[0]) if keys else None
        if session is None:
            return [None] * len(records)
        return session[0].placements_of([r.get("backendDOMNodeId") for r in records], session[1])
    result: list[Any] = [known.get(r["nodeId"], _UNKNOWN) for r in records] if known \
        else [_UNKNOWN] * len(records)
    by_session: dict[str, list[int]] = {}
    for index, made in enumerate(result):
        if made is _UNKNOWN:
            by_session.setdefault(keys[index], []).append(index)
    for key, indices in by_session.items():
        session = placed.get(key)
        if session is None:
            for index in indices:
                result[index] = None
            continue
        made_now = session[0].placements_of([records[i].get("backendDOMNodeId") for i in indices],
                                            session[1])
        for index, placement in zip(indices, made_now):
            result[index] = placement
    return result


def _place_text_boxes(records: list[Record], keys: list[str], placements: list[Placement | None],
                      placed: Placed) -> None:
    """Each InlineTextBox record placed at its line box: the n-th InlineTextBox child of a text
    node is its n-th text box in the DOM snapshot (both come in line order). A text node whose
    counts differ leaves its boxes unplaced rather than pair them wrongly."""
    index_of = {r["nodeId"]: i for i, r in enumerate(records)}
    for index, record in enumerate(records):
        backend_id = record["backendDOMNodeId"]
        if backend_id is None or not record["childIds"]:
            continue
        line_indices = [index_of[c] for c in record["childIds"] if c in index_of
                        and axtree.role_of(records[index_of[c]]) == axtree.INLINE_TEXT_BOX]
        session = placed.get(keys[index]) if line_indices else None
        if session is None:
            continue
        lines = session[0].text_box_placements(backend_id, session[1])
        if len(lines) == len(line_indices):
            for line_index, line in zip(line_indices, lines):
                placements[line_index] = line


def _sticky(placed: Placed) -> bool:
    return any(doc.has_sticky for snap, _p in placed.values() for doc in snap.documents)


async def _nothing() -> dict:
    return {}


def _or_exception(call: Awaitable[Any]) -> Awaitable[Any]:
    """``call``'s result, or the exception it raised, as a value. The call is scheduled at once:
    a wrapper cancelled before it ever ran would otherwise leave ``call`` never awaited."""
    task = asyncio.ensure_future(call)
    task.add_done_callback(_consume_outcome)
    return _outcome(task)


def _consume_outcome(task: asyncio.Future) -> None:
    # Marks the exception retrieved when nobody awaits the task any more (a cancelled caller).
    if not task.cancelled():
        task.exception()


async def _outcome(task: asyncio.Future) -> Any:
    try:
        return await task
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return exc


async def _session_records(session: Any, snapshot: Snapshot, frame_id: str, ax_reply: Any,
                           prefix: str, *, inline_text_boxes: bool = False) -> tuple[list[Record], str]:
    """The nodes of one session (a page or an OOPIF) and all frames in its process: its AX tree,
    its same-process iframes' AX trees hung under their iframe nodes, or the DOM fallback."""
    if isinstance(ax_reply, BaseException):
        if isinstance(ax_reply, (CDPSessionClosed, CDPDisconnected, CDPTimeout)):
            raise ax_reply
        log.info("AX tree unavailable (%s): DOM fallback", ax_reply)
        records = [r for doc in snapshot.documents for r in dom_records(
            doc, snapshot.strings, prefix + ("" if doc.index == 0 else f"d{doc.index}:"))]
        source = "dom"
    else:
        with gc_paused():
            records = axtree.ax_records(ax_reply.get("nodes", []), frame_id, prefix,
                                        inline_text_boxes=inline_text_boxes)
        records += await _same_process_frames(session, snapshot, frame_id, records, prefix,
                                              inline_text_boxes)
        source = "accessibility"
    _link_frames(snapshot, records)
    target_id = session.target_id
    for record in records:
        record["targetId"] = target_id
    return records, source


async def _same_process_frames(session: Any, snapshot: Snapshot, root_frame: str,
                               root_records: list[Record], prefix: str,
                               inline_text_boxes: bool = False) -> list[Record]:
    """AX trees of the iframes rendered in the session's own process (e.g. same-origin ones)."""
    frames = [doc for doc in snapshot.documents[1:] if doc.frame_id and doc.frame_id != root_frame]
    if not frames:
        return []
    known = {r["backendDOMNodeId"] for r in root_records}
    replies = await asyncio.gather(*(
        _or_exception(session.send("Accessibility.getFullAXTree", {"frameId": doc.frame_id}))
        for doc in frames))
    records: list[Record] = []
    for doc, reply in zip(frames, replies):
        if isinstance(reply, BaseException):
            if isinstance(reply, (CDPSessionClosed, CDPDisconnected)):
                raise reply
            records += dom_records(doc, snapshot.strings, f"{prefix}d{doc.index}:")
            continue
        nodes = [n for n in reply.get("nodes", []) if n.get("backendDOMNodeId") not in known]
        records += axtree.ax_records(nodes, doc.frame_id, f"{prefix}f{doc.index}:",
                                     inline_text_boxes=inline_text_boxes)
    return records


def _link_frames(snapshot: Snapshot, records: list[Record]) -> None:
    """Hang each same-process frame's root under its iframe element's node."""
    owner_of_doc = {child: owner for doc in snapshot.documents
                    for owner, child in doc.child_documents.items()}
    frame_doc = {doc.frame_id: doc.index for doc in snapshot.documents}
    by_backend = {r["backendDOMNodeId"]: r for r in records if r["backendDOMNodeId"] is not None}
    for record in records:
        if record["parentId"] is not None:
            continue
        doc_index = frame_doc.get(record["frameId"])
        owner = by_backend.get(owner_of_doc.get(doc_index)) if doc_index else None
        if owner is not None and owner is not record:
            record["parentId"] = owner["nodeId"]
            owner["childIds"].append(record["nodeId"])


def _attach(child_records: list[Record], owner_id: int | None, parent_records: list[Record]) -> None:
    """Hang an out-of-process iframe's roots under its owner iframe's node in its parent."""
    if owner_id is None:
        return
    owner = next((r for r in parent_records if r["backendDOMNodeId"] == owner_id), None)
    if owner is None:
        return
    for record in child_records:
        if record["parentId"] is None:
            record["parentId"] = owner["nodeId"]
            owner["childIds"].append(record["nodeId"])


async def _capture_child(page: Any, child: Any, dpr: float, *, accessibility: bool = True,
                         inline_text_boxes: bool = False,
                         ) -> tuple[Snapshot, list[Record] | None, int | None, str] | None:
    """An OOPIF's snapshot, nodes (with its own same-process frames) and owner iframe element
    (its backendNodeId in the parent). None when the iframe went away meanwhile: the rest of
    the tab still stands."""
    parent_session = page if child.parent_target_id == page.target_id else \
        page.children.get(child.parent_target_id)
    if parent_session is None:
        return None
    snapshot_reply, ax_reply, owner = await asyncio.gather(
        _or_exception(child.send("DOMSnapshot.captureSnapshot", CAPTURE_PARAMS)),
        _or_exception(child.send("Accessibility.getFullAXTree")) if accessibility else _nothing(),
        _or_exception(parent_session.send("DOM.getFrameOwner", {"frameId": child.target_id})))
    if isinstance(snapshot_reply, BaseException):
        return None
    owner_id = None if isinstance(owner, BaseException) else owner.get("backendNodeId")
    with gc_paused():
        snapshot = Snapshot(snapshot_reply, dpr)
    if not accessibility:
        return snapshot, None, owner_id, ""
    try:
        records, source = await _session_records(child, snapshot, child.target_id, ax_reply,
                                                 f"{child.target_id[:8]}:",
                                                 inline_text_boxes=inline_text_boxes)
    except (CDPSessionClosed, CDPTimeout):
        return None
    return snapshot, records, owner_id, source


def _oopif_root(parent: Snapshot, parent_placements: dict[int, DocumentPlacement],
                owner_id: int | None, child: Snapshot) -> DocumentPlacement | None:
    if owner_id is None or not child.documents:
        return None
    doc_index = parent.owner_document.get(owner_id)
    if doc_index is None or doc_index not in parent_placements:
        return None
    root = child.documents[0]
    return parent.child_placement(parent.documents[doc_index], parent_placements[doc_index],
                                  owner_id, root.scroll_x, root.scroll_y)


# -- rendering ---------------------------------------------------------------------------------

def _view(probe: ProbeResult, metrics: dict) -> View:
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    device_layout = metrics.get("layoutViewport", {})
    zoom = float(visual.get("zoom") or 1.0)
    dpr = probe.device_pixel_ratio
    window = probe.window(float(device_layout.get("clientWidth", 0)),
                          float(device_layout.get("clientHeight", 0)))
    origin_x, origin_y = viewport_origin(window, dpr / zoom)
    return View(layout_x=float(layout.get("pageX", 0)), layout_y=float(layout.get("pageY", 0)),
                visual_x=float(visual.get("pageX", 0)), visual_y=float(visual.get("pageY", 0)),
                visual_width=float(visual.get("clientWidth", 0)),
                visual_height=float(visual.get("clientHeight", 0)),
                pinch_scale=float(visual.get("scale") or 1.0), zoom=zoom, device_pixel_ratio=dpr,
                origin_x=origin_x, origin_y=origin_y)


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


async def _answer(page: Any, capture: Capture, probe: ProbeResult, metrics: dict,
                  options: LayoutOptions) -> dict[str, Any]:
    """The answer for the view now, with its interactive nodes hit-tested (hits.py): once per
    capture and view."""
    if capture.ancestry is None:
        return _render(capture, probe, metrics, options)
    view = _view(probe, metrics)
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
        return _render(capture, probe, metrics, options)
    return _render(capture, probe, metrics, options, capture.hits[1])


def _animating(probe: ProbeResult, child_probes: list[ProbeResult | None]) -> bool:
    """A frame with a running animation: its page is never cached (probe.py's "a")."""
    return "a" in probe.frames or any(c is not None and "a" in c.frames for c in child_probes)


def _render(capture: Capture, probe: ProbeResult, metrics: dict, options: LayoutOptions,
            hit_results: dict[str, bool | None] | None = None) -> dict[str, Any]:
    view = _view(probe, metrics)
    capture.visible = probe.visible
    # The same answer for ?tab= or every tab, fresh or not.
    options = dataclasses.replace(options, tab=None, fresh=False, order="front")
    last = capture.rendered.get(options)
    if last is not None and last[0] == view:
        return last[1]                       # nothing moved: the same answer, already built
    records, placements = _selected(capture, options)
    truncated = options.max_nodes is not None and len(records) > options.max_nodes
    if truncated:
        records = axtree.truncate(records, options.max_nodes)
        placements = placements[:options.max_nodes]
    node_cache = capture.node_caches.get(options)
    if node_cache is None:
        if len(capture.node_caches) >= MAX_RENDERED_OPTIONS:
            capture.node_caches.pop(next(iter(capture.node_caches)))
        node_cache = capture.node_caches[options] = render.NodeCache()
    with gc_paused():
        node_json = render.nodes(records, placements, view, node_cache, capture.record_json,
                                 options.bounds_space, hit_results)
    if capture.record_json is not None:
        release_later(capture.record_json)       # in the node cache now
        capture.record_json = None
    layout = dict(
        source=capture.source,
        boundsSpace=options.bounds_space,
        truncated=truncated,
        nodeCount=len(node_json),
        viewport=render.viewport_json(metrics, view),
        nodes=NodeList(node_json),           # last: the encoder splices the nodes' JSON in
    )
    if len(capture.rendered) >= MAX_RENDERED_OPTIONS:
        capture.rendered.pop(next(iter(capture.rendered)))
    capture.rendered[options] = (view, layout)
    return layout
