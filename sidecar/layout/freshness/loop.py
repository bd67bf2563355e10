"""The freshness loop of one tab: check, read, check again, keep.

    probe ──> a reader (readers.py, in order: the first that applies) ──> after-check
      ^                                                                      │
      └──── the page changed during the read (at most CAPTURE_ATTEMPTS) ─────┤
                                                                             v
                          keep the capture with the after-check's signal ──> answer

A capture is kept (and reused by later requests) only when the probe before the read and the
after-check saw the same change counts; one that could not be checked is answered, not kept.
A probe that finds a frame's recount due (probe.py counts changed nodes again two animation
frames later) waits for it and probes again: a read taken before it would be taken twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..answering.answer import answer
from ..reading.capture import Capture, PageChanged
from ..runtime.memory import gc_paused, release_later
from ..output.options import LayoutOptions
from ..output.shapes import Layout
from ..probing.change_signal import (Probed, after_check, at_scroll, frames_of, probe, settled, signal, untouched,
                      view_key)
from ..reading.read_patch import take_params
from ..reading.read_whole import read_whole
from ..reading.readers import Read, ReadContext, Reader, patching
from ..runtime.seams import ChildSession, Page
from .tab import LayoutCounters, TabLayout

CAPTURE_ATTEMPTS = 3        # a page that navigates during a capture is captured again


async def read_tab(page: Page, tab: TabLayout, options: LayoutOptions, readers: Sequence[Reader],
                   counters: LayoutCounters) -> Layout:
    """The tab's layout for ``options``, from its capture when still right, else read again
    (the caller holds ``tab.lock``)."""
    children = list(page.children.values())
    with gc_paused():            # bounded: the tab's layout has a timeout (service.TAB_TIMEOUT)
        if options.inline_text_boxes:
            return await _text_box_layout(page, children, options)
        for attempt in range(CAPTURE_ATTEMPTS):
            answered = await _check_read_check(page, children, tab, options, readers, counters,
                                               last=attempt + 1 == CAPTURE_ATTEMPTS)
            if answered is not None:
                return answered
    raise PageChanged("the page kept changing while its layout was captured; retry")


async def _check_read_check(page: Page, children: list[ChildSession], tab: TabLayout, options: LayoutOptions,
                   readers: Sequence[Reader], counters: LayoutCounters, *, last: bool,
                   ) -> Layout | None:
    """One check-read-check; None when the page changed meanwhile (try again)."""
    previous = None if options.fresh else tab.capture
    take = take_params(previous) if patching(readers) else None
    before = await probe(page, children, take)
    if await settled(page, children, before):
        before = await probe(page, children, take)
    ctx = ReadContext(page, children, before, previous, signal(before, children),
                      signal(before, children, scrolls=False), options.fresh,
                      lambda: after_check(page))
    try:
        reader, read = await _first_read(readers, ctx)
    except PageChanged:
        return None
    capture = read.capture
    if read.reused:
        capture.checked = before
        counters.reuses += 1
        return await answer(page, capture, before.probe, before.metrics, options)
    # Trust the capture only if nothing changed while it was taken.
    checked = await read.after if read.after is not None else None
    if not isinstance(checked, Probed):         # none sent ahead, or it failed: ask now
        checked = await probe(page, children)
    after, after_metrics = checked.probe, checked.metrics
    if ctx.signal is not None and frames_of(before) != frames_of(checked):
        return None
    if not capture.holds_at(after_metrics):
        if not last:
            return None         # scrolled during the read: sticky boxes are of another scroll
        # Still scrolling (a smooth wheel scroll lasts longer than three reads): answer for
        # the scroll the snapshot was taken at, true at that instant, and keep nothing.
        return await answer(page, capture, after, at_scroll(after_metrics, capture.scroll), options)
    _keep(tab, capture, checked, children, trusted=ctx.signal is not None)
    _count(counters, reader.counter, capture)
    return await answer(page, capture, after, after_metrics, options)


async def _first_read(readers: Sequence[Reader], ctx: ReadContext) -> tuple[Reader, Read]:
    for reader in readers:
        read = await reader.read(ctx)
        if read is not None:
            return reader, read
    raise RuntimeError("no layout reader applied (the whole read always does: readers_named)")


def _keep(tab: TabLayout, capture: Capture, checked: Probed, children: list[ChildSession], *,
          trusted: bool) -> None:
    """The capture becomes the tab's, keyed by the after-check's signal when that can be
    trusted (else by a key nothing matches)."""
    after_signal = signal(checked, children)
    cacheable = after_signal is not None and (trusted or untouched(frames_of(checked)))
    capture.signal = after_signal if cacheable and after_signal is not None else (object(),)
    capture.structure = signal(checked, children, scrolls=False) if cacheable else (object(),)
    capture.frames = checked.probe.frames if cacheable else ()
    capture.view_key = view_key(checked.probe)
    capture.checked = checked if cacheable else None
    previous = tab.capture
    if previous is not None and previous is not capture:
        # Handed on: the next answer reuses the JSON of the nodes that did not change.
        capture.node_caches = {**previous.node_caches, **capture.node_caches}
        release_later(previous)
    tab.capture = capture


def _count(counters: LayoutCounters, counter: str, capture: Capture) -> None:
    setattr(counters, counter, getattr(counters, counter) + 1)
    if counter == "patches":
        counters.wide += capture.wide
        counters.restyled += capture.restyled


async def _text_box_layout(page: Page, children: list[ChildSession], options: LayoutOptions) -> Layout:
    """A whole read that keeps Chromium's InlineTextBox nodes, placed at their line boxes. Never
    kept: the kept reads' records leave those nodes out, and few requests ask for them. Read
    again when the page changed while it was read, as the kept reads are."""
    for _attempt in range(CAPTURE_ATTEMPTS):
        before = await probe(page, children)
        capture = await read_whole(page, children, before.probe.device_pixel_ratio,
                                   inline_text_boxes=True)
        checked = await probe(page, children)
        if frames_of(before) == frames_of(checked):
            return await answer(page, capture, checked.probe, checked.metrics, options)
    raise PageChanged("the page kept changing while its layout was captured; retry")
