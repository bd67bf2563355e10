"""Screen changes as the X server reports them: a DAMAGE object on the root window, read by a
thread of its own on a connection of its own, so that waiting for the screen to go quiet never
holds desktopd's X thread (input and captures keep flowing meanwhile).

The root window's damage covers everything drawn on the screen, every window's contents included
(Chromium's damage arrives when it presents a frame). Raw rectangles: one event per drawing
operation, each stamped with the monotonic time it was read, so the time of the last change is
known without a DamageSubtract round trip per event.
"""

from __future__ import annotations

import logging

from Xlib.ext import damage as xdamage

from desktopd.settle.changes import ChangeLog, ThreadedChangeSource

from .connection import open_display
from .errors import DisplayUnavailable, X11Error

log = logging.getLogger(__name__)
__all__ = ["ChangeLog", "DamageWatcher", "open_watcher"]   # ChangeLog lives in desktopd/settle/changes.py


class DamageWatcher(ThreadedChangeSource):
    """Reads the root window's DamageNotify events into a ChangeLog until closed or the server
    goes away (then ``log.closed_reason`` says why and a new watcher must be started)."""

    CONNECTION = "X"
    LOST = (Exception,)   # python-xlib raises several kinds when its connection ends

    def __init__(self, display_name: str, log_: ChangeLog | None = None) -> None:
        super().__init__(display_name, log_)
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
        self._start("desktopd-damage")

    def _read_forever(self) -> None:
        while True:
            event = self._dpy.next_event()
            area = getattr(event, "area", None)
            if area is not None:
                self.log.add((area.x, area.y, area.width, area.height))

    def _fileno(self) -> int:
        return int(self._dpy.display.socket.fileno())

    def _release(self) -> None:
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
