"""Opening python-xlib display connections, with failures as DisplayUnavailable.

For local displays (":N") the socket is probed first with a socket we close ourselves:
python-xlib leaks the socket of a failed attempt (and of its TCP fallback), which a daemon that
retries while the server is down would pile up until garbage collection."""

from __future__ import annotations

import errno
import os
import re
import socket

from Xlib import display as xdisplay
from Xlib import error as xerror

from .errors import DisplayUnavailable

_LOCAL = re.compile(r"^(?:unix)?:(\d+)(?:\.\d+)?$")


def _reachable(address, family: int) -> bool:
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(2.0)
        try:
            probe.connect(address)
            return True
        except OSError as exc:
            if exc.errno in (errno.ECONNREFUSED, errno.ENOENT, errno.ETIMEDOUT, errno.EHOSTUNREACH,
                             errno.ECONNRESET, None):
                return False
            raise


def local_display_reachable(name: str) -> bool | None:
    """True/False for ":N" displays (unix socket, then the TCP fallback python-xlib would try);
    None when the name is not a local display (then python-xlib decides)."""
    match = _LOCAL.match(name)
    if match is None:
        return None
    number = int(match.group(1))
    path = f"/tmp/.X11-unix/X{number}"
    if _reachable(path if os.path.exists(path) else "\0" + path, socket.AF_UNIX):
        return True
    if name.startswith("unix:"):
        return False
    return _reachable(("127.0.0.1", 6000 + number), socket.AF_INET)


def open_display(name: str, what: str = "display") -> xdisplay.Display:
    try:
        if local_display_reachable(name) is False:
            raise DisplayUnavailable(f"cannot open {what} {name}: no X server is listening")
        return xdisplay.Display(name)
    except (xerror.DisplayError, OSError, EOFError) as exc:
        raise DisplayUnavailable(f"cannot open {what} {name}: {exc}") from None
