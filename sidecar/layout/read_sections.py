"""The read in sections: a tab of one document read as pipelined pieces (sections.py), each
piece's JSON and bounds made while Chromium makes the next."""

from __future__ import annotations

import asyncio

from . import patch, render, sections
from .aio import or_exception
from .answer import EVERY_NODE
from .axtree import Record
from .capture import Capture, Placed, one_document, parsed_snapshot, place_sessions, placements
from .geometry import Placement, View
from .memory import release_later
from .probing import AfterCheck, Probed
from .seams import Page


async def read_sections(page: Page, dpr: float, view: View | None, after_check: AfterCheck,
                        ) -> tuple[Capture | None, asyncio.Future[Probed | Exception] | None]:
    """The tab read in sections, and the after-check sent behind its reads (None: check now);
    (None, None) when the page reads whole."""
    # The domain first (the ancestor reads need it), then the page's choice of sections.
    enabled, frame_tree, reply = await asyncio.gather(
        or_exception(page.send("Accessibility.enable")), page.send("Page.getFrameTree"),
        or_exception(page.send("Runtime.evaluate", sections.SECTIONS_PARAMS)))
    groups = None if isinstance(enabled, BaseException) or isinstance(reply, BaseException) \
        else patch.parse_groups(reply)
    if not groups:
        return None, None
    main_frame = frame_tree["frameTree"]["frame"]["id"]
    # The snapshot first: it lays the page out once, and its parse overlaps the first section.
    # The check that nothing changed meanwhile last, answered while the sections are put in order.
    snapshot_call = asyncio.ensure_future(parsed_snapshot(page, dpr))
    reads = sections.start_reads(page, groups)
    after_call: asyncio.Future | None = after_check()
    ahead = Ahead(page, snapshot_call, view)
    records = await sections.sectioned_records(page, reads, main_frame, ahead.add)
    snapshot = await snapshot_call
    release_later(reads)
    capture = one_document(page, records, snapshot, main_frame, sectioned=True,
                           placed=ahead.placed, known=ahead.placement_of)
    if capture is None:
        await after_call
        return None, None
    if reads.late:              # a section read again from its ancestor, after that check
        await after_call
        after_call = None
    capture.record_json = ahead.made
    if ahead.nodes.entries:
        capture.node_caches[EVERY_NODE] = ahead.nodes
    return capture, after_call


class Ahead:
    """The answer's work done while Chromium still makes the next sections: each section's
    records as JSON and, once the snapshot is in, with their bounds for the view of the request
    (render.nodes then finds them all made, unless the view changed meanwhile)."""

    def __init__(self, page: Page, snapshot_call: asyncio.Future, view: View | None) -> None:
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
            self.placed = place_sessions(self.page, call.result(), [], {})
        placed = placements(section, [self.page.target_id] * len(section), self.placed)
        self.placement_of.update(zip([record["nodeId"] for record in section], placed))
        part = render.NodeCache(view=self.view)
        render.nodes(section, placed, self.view, part, self.made)
        self.nodes.entries.update(part.entries)
