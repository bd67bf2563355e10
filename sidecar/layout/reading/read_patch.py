"""The patch: only the subtrees a change touched read again (patch.py), spliced into the last
capture's records, plus what CSS re-rendered beyond them (restyle.py)."""

from __future__ import annotations

import asyncio

from ..records import patch
from .capture import Capture, one_document, parsed_snapshot
from ..runtime.memory import release_later
from ..probing.probe import document_token
from ..probing.change_signal import AfterCheck, Probed, view_key
from ..runtime.seams import Page
from ...cdp.protocol.cdp_commands import RuntimeEvaluateParams, RuntimeEvaluateResult


def patchable(capture: Capture, probed: Probed, has_children: bool) -> bool:
    """Whether the tab is still the one document (same token) the capture was taken of."""
    frames = probed.probe.frames
    if not capture.patchable or has_children or len(frames) != 1 or len(capture.frames) != 1:
        return False
    if capture.view_key != view_key(probed.probe):
        # Zoom, the device scale or the window's size changed: what overflows (and so which
        # boxes are scroll containers in the accessibility tree) can change anywhere.
        return False
    return document_token(frames[0]) == document_token(capture.frames[0])


def take_params(capture: Capture | None) -> RuntimeEvaluateParams | None:
    """The roots' take to send along with the probe (after it: roots cover every change the
    probe counts), so a patch does not wait for one more round trip."""
    if capture is None or not capture.patchable or len(capture.frames) != 1:
        return None
    return patch.take_params(capture.frames[0])


async def read_patch(page: Page, dpr: float, capture: Capture, roots_reply: RuntimeEvaluateResult,
                     after_check: AfterCheck,
                     ) -> tuple[Capture, asyncio.Future[Probed | Exception] | None] | None:
    """The capture with only the changed subtrees read again and fresh boxes, and the
    after-check already sent behind its reads; None when the change needs a full read.
    ``roots_reply`` is the take's (take_params)."""
    take = patch.parse_take(roots_reply)
    before = capture.render
    if take is None or before is None:
        return None
    # The renderer answers in order: the roots' ancestors first, then the snapshot, the
    # renderer's longest job; the subtrees are read level by level meanwhile, and the check that
    # nothing changed goes out behind the last of those reads, answered by the time the nodes
    # are placed.
    budget = patch.node_budget(capture.records)
    if patch.old_subtree_nodes(capture.records, take.roots) > budget.left:
        return None                 # most of the page changed: a full read is cheaper
    reads = patch.start_reads(page, take.roots, budget, take.top)
    snapshot_call = asyncio.ensure_future(parsed_snapshot(page, dpr, boxes=False))
    spliced = asyncio.ensure_future(_spliced_then_checked(page, capture, reads, after_check))
    # CSS can re-render more than the changed nodes (a class on <body>, :has(), :focus-within):
    # the rendering tells what (restyle.py). Its last side is worked out while Chromium makes
    # the new snapshot (once the calls above are on their way: one turn of the loop sends them).
    await asyncio.sleep(0)
    before.signatures()
    snapshot = await snapshot_call
    rendering = snapshot.render_state()
    restyled = None if rendering is None else rendering.restyled_roots(before, take.roots)
    records, after_call = await spliced     # right unless more was re-rendered, as is most often
    if restyled is None:
        release_later(snapshot)
        await after_call
        return None
    if restyled:                    # spliced again with those, as one tree that must add up,
        await after_call            # and checked anew behind their reads
        patch.add_reads(page, reads, restyled)
        await asyncio.sleep(0)      # (sent) the snapshot's boxes are read meanwhile
        snapshot.read_boxes()
        records, after_call = await _spliced_then_checked(page, capture, reads, after_check)
    patched = one_document(page, records, snapshot, capture.frame_id)
    if patched is None:
        await after_call
        return None
    patched.wide, patched.restyled = take.top is not None, len(restyled)
    return patched, after_call


async def _spliced_then_checked(page: Page, capture: Capture, reads: patch.Reads, after_check: AfterCheck,
                                ) -> tuple[list | None, asyncio.Future[Probed | Exception]]:
    """The capture's records with the reads spliced in, and the after-check, sent as soon as
    the last of those reads is answered (it vouches for every read before it)."""
    records = await patch.patched_records(page, capture.records, reads, capture.frame_id)
    return records, after_check()
