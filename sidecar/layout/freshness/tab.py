"""One tab's layout state, and what the layout service counts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ..reading.capture import Capture
from .refresh import RefreshState


@dataclass
class TabLayout:
    """Per tab: one read at a time (the lock), the capture the next one starts from, and the
    background refresh's state. Dropped when the tab is gone."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    capture: Capture | None = None
    refresh: RefreshState = field(default_factory=RefreshState)
    read_url: str | None = None     # the tab's URL when a request last read it


@dataclass
class LayoutCounters:
    """Reads of every tab since the connection was made, by the reader that made them."""

    captures: int = 0        # full reads
    patches: int = 0         # incremental reads ...
    wide: int = 0            # ... of which after a page-wide change
    frames: int = 0          # reads of a page with iframes, its top document's tree only
    restyled: int = 0        # re-rendered elements patches read again
    rescans: int = 0         # the same nodes with fresh boxes (scrolling inside the page)
    reuses: int = 0          # the last capture still right (a request's own check)
    refreshes: int = 0       # background reads after a page's change notification

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))
