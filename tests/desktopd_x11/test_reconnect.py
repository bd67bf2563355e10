"""desktopd survives its X server: 503-style DisplayUnavailable while it is gone, and the same
X11Desktop works again once an X server is back on the same display number."""

from __future__ import annotations

import pytest

from desktopd.x11.desktop import X11Desktop, DisplayUnavailable
from testbed.capability import have_program, require
from testbed.xvfb import start_xvfb

pytestmark = pytest.mark.x11


def test_reconnects_after_xvfb_restarts_on_the_same_display(tmp_path) -> None:
    require(have_program("Xvfb"), "Xvfb (Debian package xvfb)")
    first = start_xvfb(640, 480, extra_args=("-br",))
    second = None
    desk = X11Desktop(first.display)
    try:
        assert desk.capture().size == (640, 480)
        desk.pointer_move(10, 10)
        desk.clipboard_set("before")
        assert desk.info()["connected"]

        first.stop()
        with pytest.raises(DisplayUnavailable):
            desk.capture()
        with pytest.raises(DisplayUnavailable):
            desk.pointer_move(20, 20)
        with pytest.raises(DisplayUnavailable):
            desk.clipboard_get(timeout=0.5)
        health = desk.info()
        assert not health["connected"] and health["last_error"]
        assert not desk.connected

        # Same display number, different screen size: everything is re-learned.
        second = start_xvfb(800, 600, extra_args=("-br", first.display))
        assert second.display == first.display
        desk.ensure_connected()
        assert desk.connected and desk.info()["connected"]
        assert desk.screen_size() == (800, 600)
        assert desk.capture().size == (800, 600)
        assert desk.info()["capture_backend"] == "mit-shm"
        desk.pointer_move(700, 500)
        assert desk.pointer_position() == (700, 500)
        desk.clipboard_set("after")
        assert desk.clipboard_get() == "after"
    finally:
        desk.close()
        desk.executor.shutdown(wait=True)
        first.stop()
        if second is not None:
            second.stop()


def test_capture_retries_once_across_a_restart() -> None:
    """A read that finds the old connection dead reconnects and answers in the same call."""
    require(have_program("Xvfb"), "Xvfb (Debian package xvfb)")
    first = start_xvfb(640, 480)
    second = None
    desk = X11Desktop(first.display)
    try:
        desk.capture()
        first.stop()
        second = start_xvfb(320, 240, extra_args=(first.display,))
        assert desk.capture().size == (320, 240)  # no DisplayUnavailable in between
    finally:
        desk.close()
        desk.executor.shutdown(wait=True)
        first.stop()
        if second is not None:
            second.stop()


def test_unreachable_display_is_unavailable_not_a_crash() -> None:
    desk = X11Desktop(":4077")  # nothing listens there
    try:
        with pytest.raises(DisplayUnavailable):
            desk.ensure_connected()
        assert desk.info() == {"display": ":4077", "connected": False, "connects": 0,
                               "last_error": desk.info()["last_error"]}
        with pytest.raises(DisplayUnavailable):
            desk.capture()
    finally:
        desk.close()
        desk.executor.shutdown(wait=True)
