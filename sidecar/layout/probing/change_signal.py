"""The freshness check: the in-page probe with the layout metrics, and the signal made of them.

A read is trusted only when the probe before it and the probe after it (the "after-check") saw
the same change counts; a cached capture is reused while the signal is the one it was taken at.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import NamedTuple, cast

from ..runtime.aio import or_exception
from .probe import PROBE_PARAMS, SETTLE_PARAMS, ProbeResult, parse_probe
from ..runtime.seams import ChildSession, Page, Session
from ...cdp.protocol.cdp_commands import PageGetLayoutMetricsResult, RuntimeEvaluateParams, RuntimeEvaluateResult
from ...cdp.protocol.cdp_types import PageLayoutViewport

SETTLE_WAIT_S = 0.1         # longest wait for a due recount (two animation frames, normally)


class Probed(NamedTuple):
    probe: ProbeResult
    metrics: PageGetLayoutMetricsResult
    child_probes: list[ProbeResult | None]
    take_reply: RuntimeEvaluateResult | None
    sent_at: float            # time.monotonic() before its calls went out


def probe(page: Page, children: list[ChildSession], take: RuntimeEvaluateParams | None = None) -> asyncio.Future[Probed]:
    """The page's and its iframes' probes and the layout metrics; and ``take`` (patch.py)
    evaluated right after them when given (its reply, else None). Its calls are on their way
    at the loop's next turn, in order behind what was sent before (the renderer answers them
    after that), even while the caller keeps the loop busy."""
    # A child iframe that detaches mid-probe only costs the cache, never the request.
    calls = [page.send("Runtime.evaluate", PROBE_PARAMS), page.send("Page.getLayoutMetrics"),
             *(or_exception(child.send("Runtime.evaluate", PROBE_PARAMS)) for child in children)]
    if take is not None:
        calls.append(or_exception(page.send("Runtime.evaluate", take)))
    return asyncio.ensure_future(_probed([asyncio.ensure_future(call) for call in calls],
                                         take is not None, time.monotonic()))


async def settled(page: Page, children: list[ChildSession], probed: Probed) -> bool:
    """Wait until the frames whose trackers have a recount due (probe.py's settling) have made
    it; False when none had one. Waiting costs at most two animation frames, where reading
    first would read again after the after-check saw the recount. Not in a hidden tab (it has
    no animation frames); bounded, since an offscreen iframe's may be throttled."""
    if probed.probe.visible is False:
        return False
    due: list[Session] = [session for session, result in zip([page, *children],
                                                             [probed.probe, *probed.child_probes])
                          if result is not None and result.settling]
    if not due:
        return False
    # A call that times out or fails costs nothing more: the after-check still catches it.
    await asyncio.gather(*(or_exception(session.send("Runtime.evaluate", SETTLE_PARAMS,
                                                     timeout=SETTLE_WAIT_S)) for session in due))
    return True


# Sends the check that a read holds, behind the read's calls already sent (a reader calls it
# when those are on their way, and awaits it once its own work is done).
AfterCheck = Callable[[], "asyncio.Future[Probed | Exception]"]


def after_check(page: Page) -> asyncio.Future[Probed | Exception]:
    """The check that a one-document read holds, sent now behind the read's calls."""
    return asyncio.ensure_future(or_exception(probe(page, [])))


async def _probed(calls: list[asyncio.Future], with_take: bool, sent_at: float) -> Probed:
    probe_reply, metrics, *replies = await asyncio.gather(*calls)
    take_reply = replies.pop() if with_take else None
    return Probed(parse_probe(probe_reply), metrics, [_parse_or_none(reply) for reply in replies],
                  None if isinstance(take_reply, BaseException) else take_reply, sent_at)


def _parse_or_none(reply: dict | BaseException) -> ProbeResult | None:
    if isinstance(reply, BaseException):
        return None
    try:
        return parse_probe(reply)
    except ValueError:
        return None


def frames_of(probed: Probed) -> tuple[tuple[str, ...], list]:
    """The change counts of the page's frames and its iframes' (what an after-check compares)."""
    return probed.probe.frames, [c.frames if c else None for c in probed.child_probes]


def untouched(frames: tuple[tuple[str, ...], list]) -> bool:
    """True when every tracker, installed by the probe before the capture, counted no change."""
    main, children = frames
    every = list(main) + [f for child in children for f in (child or ("?",))]
    return all(f == "x" or f.split(":")[1:] == ["0", "0"] for f in every)


def signal(probed: Probed, children: list[ChildSession], *, scrolls: bool = True) -> tuple | None:
    """A key that changes whenever cached placements could be wrong, or None (never cache).
    Without ``scrolls``: a key that changes whenever the nodes themselves could be."""
    main, metrics, child_probes = probed.probe, probed.metrics, probed.child_probes
    if not main.trackable or any(c is None or not c.trackable for c in child_probes):
        return None
    unreachable = main.unreachable_frames + sum(c.unreachable_frames for c in child_probes if c)
    if unreachable > len(children):
        return None          # a cross-origin frame in this process: its changes are invisible
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    frames = (lambda p: p.frames) if scrolls else (lambda p: p.structure)
    return (frames(main), tuple(sorted(c.target_id for c in children)),
            tuple(frames(c) for c in child_probes if c),
            layout.get("clientWidth"), layout.get("clientHeight"), visual.get("zoom"),
            main.device_pixel_ratio, main.inner_width, main.inner_height)


def unprovable(probed: Probed) -> bool:
    """Part of the page changes with no signal the probe can count: a focused <select>'s open
    popup (its value and highlighted option follow the keys). Its capture is never reused as
    it is; a patch reads that select again (patch.py's take names it while open)."""
    return probed.probe.popup_open or any(c is not None and c.popup_open
                                          for c in probed.child_probes)


def animating(probed: Probed) -> bool:
    """A frame with a running animation: its page is never cached (probe.py's "a")."""
    return "a" in probed.probe.frames or any(c is not None and "a" in c.frames
                                             for c in probed.child_probes)


def view_key(probe_result: ProbeResult) -> tuple[float, float, float]:
    return probe_result.device_pixel_ratio, probe_result.inner_width, probe_result.inner_height


# How far apart two readings of one scroll position may be (CSS px): float rounding only (the
# snapshot's is in device px, the metrics' in CSS px), far below a device pixel at any zoom.
SCROLL_EPSILON = 0.01


def layout_scroll(metrics: PageGetLayoutMetricsResult) -> tuple[float, float]:
    """The top-level document's scroll (CSS px, exact) from Page.getLayoutMetrics. Not the
    layout viewport's pageX/Y: CDP rounds those to whole CSS px, and under page zoom a scroll
    is fractional (one device px at 150 % is 0.67 CSS px: a sticky box that far off)."""
    visual = metrics.get("cssVisualViewport", {})
    return (float(visual.get("pageX", 0)) - float(visual.get("offsetX", 0)),
            float(visual.get("pageY", 0)) - float(visual.get("offsetY", 0)))


def same_scroll(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < SCROLL_EPSILON and abs(a[1] - b[1]) < SCROLL_EPSILON


def at_scroll(metrics: PageGetLayoutMetricsResult, scroll: tuple[float, float] | None,
              ) -> PageGetLayoutMetricsResult:
    """``metrics`` (Page.getLayoutMetrics) as they were at the top-level ``scroll``."""
    if scroll is None:
        return metrics
    layout = metrics.get("cssLayoutViewport", {})
    visual = metrics.get("cssVisualViewport", {})
    now = layout_scroll(metrics)
    dx, dy = scroll[0] - now[0], scroll[1] - now[1]
    # CDP types the layout viewport's offset in whole px; this one is the exact scroll (under
    # zoom a fraction), as the answer's "layoutViewport" reports it.
    layout_at = cast(PageLayoutViewport, {**layout, "pageX": scroll[0], "pageY": scroll[1]})
    return {**metrics,
            "cssLayoutViewport": layout_at,
            "cssVisualViewport": {**visual, "pageX": float(visual.get("pageX", 0)) + dx,
                                  "pageY": float(visual.get("pageY", 0)) + dy}}
