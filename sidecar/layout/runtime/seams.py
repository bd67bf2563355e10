"""What /layout needs of the browser side: CDP sessions, tabs, the target tracker, the connection.

The layout code is written against these Protocols, not the CDP client's classes, so its seams
are typed (sidecar.cdp.targets' PageTarget, ChildTarget and TargetTracker satisfy them) and unit
tests can hand in small fakes that say what they implement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ...cdp.protocol.cdp_send import SessionCommands


class Session(SessionCommands, Protocol):
    """One CDP session: a tab's or an out-of-process iframe's (send() typed per command)."""

    @property
    def target_id(self) -> str: ...

    @property
    def session_id(self) -> str: ...


class ChildSession(Session, Protocol):
    """An out-of-process iframe below a tab."""

    @property
    def parent_target_id(self) -> str: ...


class Page(Session, Protocol):
    """A tab: its own session and every out-of-process iframe below it."""

    @property
    def url(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def crashed(self) -> bool: ...

    @property
    def pending_navigation(self) -> str | None:
        """The URL of a navigation to a new document that has not committed yet, or None."""

    @property
    def navigations(self) -> int:
        """How many navigations to a new document the tab started."""

    @property
    def navigation_started(self) -> float:
        """time.monotonic() when the last of them started."""

    @property
    def children(self) -> Mapping[str, ChildSession]: ...


class Tracker(Protocol):
    """The tabs of one connection (sidecar.cdp.targets.TargetTracker)."""

    def pages(self) -> Sequence[Page]: ...

    def find_page(self, id_or_prefix: str) -> Page | None: ...

    def page_for_session(self, session_id: str) -> Page | None: ...

    async def refresh_titles(self) -> None: ...


EventHandler = Callable[[dict, "str | None"], None]


class Connection(Protocol):
    """The CDP connection, for its state and its events."""

    @property
    def connected(self) -> bool: ...

    def on(self, method: str, callback: EventHandler) -> None: ...

    def off(self, method: str, callback: EventHandler) -> None: ...


class TabHealth(Protocol):
    """sidecar.browser.tab_health.TabHealth as /layout uses it: tabs that stopped answering."""

    budget_s: float

    def unresponsive(self, target_id: str) -> bool: ...

    def mark(self, page: Page) -> None: ...



class WindowCheck(Protocol):
    """Whether a tab's screen bounds are exact: the browser window its page reports is the one
    the compositor shows (sidecar/browser/compositor_window.py, Chromium on Wayland). It may
    wait, within a bound, for the window to settle."""

    async def unsettled(self, page: Page) -> str | None:
        """None when the tab's screen bounds are exact; else why they are not."""
