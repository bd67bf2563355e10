"""Screen changes as the X server reports them: a DAMAGE object on the root window, read by a
thread of its own on a connection of its own, so that waiting for the screen to go quiet never
holds desktopd's X thread (input and captures keep flowing meanwhile).

The root window's damage covers everything drawn on the screen, every window's contents included
(Chromium's damage arrives when it presents a frame). Raw rectangles: one event per drawing
operation, each stamped with the monotonic time it was read, so the time of the last change is
known without a DamageSubtract round trip per event.
"""

from __future__ import annotations

import collections
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from Xlib.ext import damage as xdamage

from .connection import open_display
from .errors import DisplayUnavailable, X11Error

log = logging.getLogger(__name__)

Rect = tuple[int, int, int, int]   # x, y, width, height in screen pixels
HISTORY = 4096                     # changes kept; a waiter only needs those since it began


@dataclass(frozen=True)
class Change:
    seq: int       # 1, 2, ... in the order the server reported them
    at: float      # time.monotonic() when read
    rect: Rect


class ChangeLog:
    """The recent changes, appended by the reader thread, read by the event loop."""

    def __init__(self, history: int = HISTORY, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._changes: collections.deque[Change] = collections.deque(maxlen=history)
        self._seq = 0
        self._lock = threading.Lock()
        self.closed_reason: str | None = None   # set when the reader stopped: no more evidence

    @property
    def seq(self) -> int:
        return self._seq

    def add(self, rect: Rect, at: float | None = None) -> None:
        with self._lock:
            self._seq += 1
            self._changes.append(Change(self._seq, self.clock() if at is None else at, rect))

    def close(self, reason: str) -> None:
        self.closed_reason = reason

    def after(self, seq: int) -> list[Change]:
        """Changes with a sequence number above ``seq`` (those still kept)."""
        with self._lock:
            newer = []
            for change in reversed(self._changes):   # the newest first: a waiter wants few
                if change.seq <= seq:
                    break
                newer.append(change)
        newer.reverse()
        return newer


class DamageWatcher:
    """Reads the root window's DamageNotify events into a ChangeLog until closed or the server
    goes away (then ``log.closed_reason`` says why and a new watcher must be started)."""

    def __init__(self, display_name: str, log_: ChangeLog | None = None) -> None:
        self.display_name = display_name
        self.log = log_ or ChangeLog()
        dpy = open_display(display_name, "display for damage events")
        try:
            if not dpy.has_extension(xdamage.extname):
                raise X11Error(f"display {display_name} has no DAMAGE extension")
            dpy.damage_query_version()          # the extension needs this handshake first
            dpy.screen().root.damage_create(xdamage.DamageReportRawRectangles)
            dpy.sync()
        except BaseException:
            dpy.close()
            raise
        self._dpy = dpy
        self._stopping = False
        self._thread = threading.Thread(target=self._read, name="desktopd-damage", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self.log.closed_reason is None

    def _read(self) -> None:
        reason = "closed"
        try:
            while True:
                event = self._dpy.next_event()
                area = getattr(event, "area", None)
                if area is not None:
                    self.log.add((area.x, area.y, area.width, area.height))
        except Exception as exc:   # the connection ended: by close(), or the server went away
            if not self._stopping:
                reason = f"X connection lost: {type(exc).__name__}: {exc}"
                log.warning("damage watcher on %s stopped: %s", self.display_name, reason)
        finally:
            self.log.close(reason)

    def close(self) -> None:
        self._stopping = True
        try:
            # A shutdown (unlike a close) wakes the reader's blocking read in another thread.
            self._dpy.display.socket.shutdown(socket.SHUT_RDWR)
        except OSError as exc:
            log.debug("shutting the damage connection down failed: %s", exc)
        self._thread.join(timeout=5)
        try:
            self._dpy.close()
        except Exception as exc:   # the socket is already shut: nothing more to tell the server
            log.debug("closing the damage connection failed: %s", exc)


def open_watcher(display_name: str) -> DamageWatcher:
    """A running watcher; DisplayUnavailable or X11Error when there can be none."""
    try:
        return DamageWatcher(display_name)
    except (DisplayUnavailable, X11Error):
        raise
    except Exception as exc:
        raise X11Error(f"cannot watch damage on {display_name}: {type(exc).__name__}: {exc}") from None
