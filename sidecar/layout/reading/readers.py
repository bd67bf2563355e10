"""The ways to read a tab, behind one small interface, tried in order until one applies.

Each is switchable (``SIDECAR_LAYOUT_STRATEGIES``, sidecar/settings.py); the whole read always
stays, last, and is what ``?fresh=true`` uses alone: the oracle the others are held to.

  reuse     the last capture as it is: the probe's signal is the one it was taken at
  rescan    the same nodes with fresh boxes: only scroll counts changed (scrolling inside the page)
  patch     only the subtrees the page's change tracker names read again (read_patch.py)
  frames    a page with iframes whose top document alone changed: that document's tree read
            again, the iframes' trees taken over (read_frames.py)
  whole     the AX trees and DOM snapshots of the page and its iframes (read_whole.py)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .capture import Capture
from ..probing.probe import document_token
from ..probing.change_signal import AfterCheck, Probed, animating, unprovable
from .read_frames import read_top_document
from .read_patch import patchable, read_patch
from .read_whole import read_whole, rescan
from ..runtime.seams import ChildSession, Page


@dataclass
class ReadContext:
    page: Page
    children: list[ChildSession]
    probed: Probed                  # the check before the read (and the patch's take)
    previous: Capture | None        # the tab's last capture (None: read afresh)
    signal: tuple | None            # probing.signal of ``probed``: None, never cache
    structure: tuple | None         # the same without scroll counts
    fresh: bool                     # ?fresh=true: only the whole read
    after_check: AfterCheck         # sends the check that the read holds, behind its calls


@dataclass
class Read:
    capture: Capture
    # The after-check a reader sent behind its reads, or None: the caller checks now.
    after: asyncio.Future[Probed | Exception] | None = None
    reused: bool = False            # the previous capture, still right: no after-check needed


class Reader(Protocol):
    name: str                       # its word in SIDECAR_LAYOUT_STRATEGIES
    counter: str                    # the LayoutCounters field a read of it adds one to

    async def read(self, ctx: ReadContext) -> Read | None:
        """The tab read this way, or None when this way does not apply."""


class Reuse:
    name, counter = "reuse", "reuses"

    async def read(self, ctx: ReadContext) -> Read | None:
        previous = ctx.previous
        if previous is None or ctx.signal is None or previous.signal != ctx.signal \
                or not previous.holds_at(ctx.probed.metrics) or unprovable(ctx.probed):
            return None
        return Read(previous, reused=True)


class Rescan:
    name, counter = "rescan", "rescans"

    async def read(self, ctx: ReadContext) -> Read | None:
        previous = ctx.previous
        if previous is None or ctx.structure is None or previous.structure != ctx.structure \
                or unprovable(ctx.probed):
            return None
        return Read(await rescan(ctx.page, ctx.children, ctx.probed.probe.device_pixel_ratio, previous))


class Patch:
    name, counter = "patch", "patches"

    async def read(self, ctx: ReadContext) -> Read | None:
        previous, probed = ctx.previous, ctx.probed
        if previous is None or probed.take_reply is None or probed.probe.popup_changed \
                or not patchable(previous, probed, bool(ctx.children)):
            return None
        patched = await read_patch(ctx.page, probed.probe.device_pixel_ratio, previous,
                                   probed.take_reply, ctx.after_check)
        return None if patched is None else Read(*patched)


class Frames:
    name, counter = "frames", "frames"

    async def read(self, ctx: ReadContext) -> Read | None:
        previous, probed = ctx.previous, ctx.probed
        if ctx.fresh or previous is None or animating(probed) or probed.probe.popup_changed \
                or not top_document_changed_alone(previous.signal, ctx.signal) \
                or any(child.parent_target_id != ctx.page.target_id for child in ctx.children):
            return None
        capture = await read_top_document(ctx.page, ctx.children, probed.probe.device_pixel_ratio,
                                          previous)
        return None if capture is None else Read(capture)


def top_document_changed_alone(before: tuple, now: tuple | None) -> bool:
    """Whether of two signals (probing.signal) only the top document's count differs, in the
    same document, with the same iframes (same-process ones in the first part, out-of-process
    ones and their counts after it) and the same view."""
    if now is None or len(before) != len(now) or not before or not isinstance(before[0], tuple):
        return False
    top_before, *frames_before = before[0]
    top_now, *frames_now = now[0]
    return bool(frames_now) and frames_now == frames_before and top_now != top_before \
        and document_token(top_now) == document_token(top_before) and now[1:] == before[1:]


class Whole:
    name, counter = "whole", "captures"

    async def read(self, ctx: ReadContext) -> Read | None:
        return Read(await read_whole(ctx.page, ctx.children, ctx.probed.probe.device_pixel_ratio))


ALL: tuple[Reader, ...] = (Reuse(), Rescan(), Patch(), Frames(), Whole())
NAMES = tuple(reader.name for reader in ALL)


def readers_named(names: Sequence[str]) -> tuple[Reader, ...]:
    """The readers of those names (other words are other switches: sidecar/settings.py checks
    them all) in their order of trial; the whole read always, last."""
    return tuple(reader for reader in ALL if reader.name in names or reader.name == "whole")


def patching(readers: Sequence[Reader]) -> bool:
    return any(reader.name == "patch" for reader in readers)
