"""Screen changes on Sway for the settle (desktopd/settle/settler.py): wlr-screencopy's damage.

A frame asked for with ``copy_with_damage`` (zwlr_screencopy_frame_v1 version 2) is copied only
once the output has been redrawn since this client's previous frame, and comes with ``damage``
events naming what was redrawn (wlroots 0.15 sends their bounding box, over the whole output even
when the frame is a region). So a frame of one pixel, asked again each time one arrives, is a
change detector: while nothing is drawn no frame comes and nothing is copied, and every redraw
(a window's new frame, a menu, the pointer's cursor, which a headless output draws into the
image) is one change, stamped when it was read. A connection and a thread of their own, as X11's
DamageWatcher (desktopd/x11/damage.py) has, so input and captures never wait on it."""

from __future__ import annotations

import logging

from desktopd.settle.changes import ChangeLog, Rect, ThreadedChangeSource

from .registry import MissingProtocol, Registry
from .screencopy import (CAPTURE_OUTPUT_REGION, EV_BUFFER, EV_BUFFER_DONE, EV_DAMAGE, EV_FAILED, EV_READY,
                         FRAME_DESTROY, Layout, ShmBuffer)
from .wire import Args, Connection, ConnectionLost, Proxy, Reader, WaylandError, socket_path

log = logging.getLogger(__name__)

FRAME_COPY_WITH_DAMAGE = 2     # zwlr_screencopy_frame_v1, since version 2
PROBE = (0, 0, 1, 1)           # the region copied: one pixel (the damage covers the whole output)
MAX_FAILURES = 3               # frames failed in a row before the watcher gives up and says why


class SwayDamageWatcher(ThreadedChangeSource):
    """Reads the output's damage into a ChangeLog until closed or the compositor goes away (then
    ``log.closed_reason`` says why and a new watcher must be started)."""

    CONNECTION = "Wayland"
    LOST = (ConnectionLost, WaylandError, OSError)

    def __init__(self, wayland_display: str, log_: ChangeLog | None = None) -> None:
        super().__init__(wayland_display, log_)
        self.frames = 0          # frames the compositor copied (one a redraw, after the first)
        conn = Connection(socket_path(wayland_display))
        try:
            registry = Registry(conn)
            self._shm, _ = registry.bind("wl_shm", 1)
            self._manager, version = registry.bind("zwlr_screencopy_manager_v1", 3)
            if version < 2:
                raise MissingProtocol(f"zwlr_screencopy_manager_v1 is version {version}: "
                                      "copy_with_damage needs version 2")
            self._output, _ = registry.bind("wl_output", 1)
            conn.roundtrip()
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._buffer: ShmBuffer | None = None
        self._frame: Proxy | None = None
        self._offers: list[Layout] = []
        self._damage: list[Rect] = []
        self._failures = 0
        self._ask()
        self._start("desktopd-sway-damage")

    # ------------------------------------------------------------------ the reader thread
    def _ask(self) -> None:
        """The next frame: the compositor offers its buffer kinds, then waits for damage."""
        self._offers, self._damage = [], []
        self._frame = self._conn.new_proxy("zwlr_screencopy_frame_v1", self._frame_event)
        x, y, width, height = PROBE
        self._manager.request(CAPTURE_OUTPUT_REGION, Args().uint(self._frame.id).sint(0).uint(self._output.id)
                              .sint(x).sint(y).sint(width).sint(height))

    def _frame_event(self, opcode: int, reader: Reader) -> None:
        if opcode == EV_BUFFER:
            self._offers.append(Layout(reader.uint(), reader.uint(), reader.uint(), reader.uint()))
        elif opcode == EV_BUFFER_DONE:
            self._copy_when_damaged()
        elif opcode == EV_DAMAGE:
            self._damage.append((reader.uint(), reader.uint(), reader.uint(), reader.uint()))
        elif opcode == EV_READY:
            self._failures = 0
            self.frames += 1
            if self.frames > 1:    # the first frame is the baseline: it comes at once
                for rect in self._damage:
                    self.log.add(rect)
            self._next()
        elif opcode == EV_FAILED:
            self._failures += 1
            if self._failures >= MAX_FAILURES:
                raise WaylandError(f"the compositor failed {MAX_FAILURES} screencopy frames in a row")
            self._next()

    def _copy_when_damaged(self) -> None:
        if not self._offers or self._frame is None:
            raise WaylandError("the compositor offered no shared-memory buffer for screencopy")
        layout = self._offers[0]
        if self._buffer is None or self._buffer.layout != layout:
            if self._buffer is not None:
                self._buffer.close()
            self._buffer = ShmBuffer(self._conn, self._shm, layout)
        self._frame.request(FRAME_COPY_WITH_DAMAGE, Args().uint(self._buffer.buffer.id))

    def _next(self) -> None:
        if self._frame is not None:
            self._frame.request(FRAME_DESTROY)
            self._conn.forget(self._frame)
        self._ask()

    def _read_forever(self) -> None:
        while True:
            self._conn.dispatch(None)

    def _fileno(self) -> int:
        return self._conn.fileno()

    def _release(self) -> None:
        if self._buffer is not None:
            self._buffer.close()
        self._conn.close()


def open_watcher(wayland_display: str) -> SwayDamageWatcher:
    """A running watcher; ConnectionLost, MissingProtocol or WaylandError when there can be none."""
    return SwayDamageWatcher(wayland_display)
