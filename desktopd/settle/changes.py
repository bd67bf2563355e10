"""Screen changes as a backend's compositor or X server reports them, and what a source of them
offers the settle (desktopd/settle/settler.py). X11 fills a ChangeLog from DAMAGE events
(desktopd/x11/damage.py), Sway from wlr-screencopy's damage (desktopd/sway/damage.py); the
settle reads only this module's types, so neither backend learns of the other."""

from __future__ import annotations

import collections
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)

Rect = tuple[int, int, int, int]   # x, y, width, height in screen pixels
HISTORY = 4096                     # changes kept; a waiter only needs those since it began


@dataclass(frozen=True)
class Change:
    seq: int       # 1, 2, ... in the order the source reported them
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


class ChangeSource(Protocol):
    """A running reader of screen changes into ``log``; once not ``alive`` (``log.closed_reason``
    says why) it is closed and a new one opened."""

    @property
    def log(self) -> ChangeLog: ...

    @property
    def alive(self) -> bool: ...

    def close(self) -> None: ...


class ThreadedChangeSource:
    """What both backends' watchers share: a connection of their own read by a thread of their
    own into ``log`` until closed or the connection ends (then ``log.closed_reason`` says why,
    "closed" when it was ``close()``). A subclass says what it reads with (CONNECTION, for the
    reason), which exceptions mean its connection ended (LOST), and gives ``_read_forever`` (a
    blocking loop), ``_fileno`` and ``_release``; it calls ``_start`` once its state is set."""

    CONNECTION: str
    LOST: tuple[type[BaseException], ...]

    def __init__(self, display_name: str, log_: ChangeLog | None) -> None:
        self.display_name = display_name
        self.log = log_ or ChangeLog()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def _start(self, thread_name: str) -> None:
        self._thread = threading.Thread(target=self._read, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self.log.closed_reason is None

    def _read(self) -> None:
        reason = "closed"
        try:
            self._read_forever()
        except self.LOST as exc:   # the connection ended: by close(), or its server went away
            if not self._stopping:
                reason = f"{self.CONNECTION} connection lost: {type(exc).__name__}: {exc}"
                log.warning("damage watcher on %s stopped: %s", self.display_name, reason)
        finally:
            self.log.close(reason)

    def close(self) -> None:
        self._stopping = True
        # A shutdown (unlike a close) wakes the reader's blocking read in its thread.
        wake = socket.socket(fileno=self._fileno())
        try:
            wake.shutdown(socket.SHUT_RDWR)
        except OSError as exc:
            log.debug("shutting the damage connection down failed: %s", exc)
        finally:
            wake.detach()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._release()

    def _read_forever(self) -> None:
        raise NotImplementedError

    def _fileno(self) -> int:
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError


# Opens a source for a display (an X display, or a Wayland socket's name); raises when none can be.
SourceOpener = Callable[[str], ChangeSource]
