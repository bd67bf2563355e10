"""The X layer's exceptions. ``desktop.py`` re-exports them; the HTTP layer maps them to statuses."""

from __future__ import annotations

import errno

from Xlib import error as xerror


class X11Error(Exception):
    """Anything the X layer could not do (HTTP 500/503)."""


class DisplayUnavailable(X11Error):
    """The X server cannot be reached now (HTTP 503); desktopd reconnects when it returns."""


class WindowNotFound(X11Error):
    """No such top-level window (HTTP 404)."""

    def __init__(self, window_id: int) -> None:
        super().__init__(f"no window with id {window_id:#x}")
        self.window_id = window_id


# What a dead X connection looks like from python-xlib: the server closed the socket, or a write
# hit a broken pipe / reset while the server was going away.
_DEAD_ERRNOS = {errno.EPIPE, errno.ECONNRESET, errno.ECONNREFUSED, errno.ENOTCONN, errno.EBADF}


def is_connection_loss(exc: BaseException) -> bool:
    if isinstance(exc, (xerror.ConnectionClosedError, BrokenPipeError, ConnectionResetError)):
        return True
    if isinstance(exc, OSError) and exc.errno in _DEAD_ERRNOS:
        return True
    return False
