"""Waiting for a window manager on a test display, woken by X events rather than a sleep."""

from __future__ import annotations

import select
import time


def wait_for_window_manager(display: str, timeout: float = 20.0) -> None:
    """Return once an EWMH window manager announces itself (_NET_SUPPORTING_WM_CHECK on the
    root), woken by the root's PropertyNotify events; TimeoutError after ``timeout`` s."""
    from Xlib import X
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display)
    try:
        root = conn.screen().root
        root.change_attributes(event_mask=X.PropertyChangeMask)
        atom = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
        deadline = time.monotonic() + timeout
        while root.get_full_property(atom, X.AnyPropertyType) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no window manager on {display} within {timeout} s")
            ready, _, _ = select.select([conn.fileno()], [], [], remaining)
            if ready:
                for _ in range(conn.pending_events()):
                    conn.next_event()
    finally:
        conn.close()
