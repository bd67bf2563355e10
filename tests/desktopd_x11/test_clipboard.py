"""The in-process CLIPBOARD owner/reader against xclip, a real independent X client."""

from __future__ import annotations

import select
import subprocess
import time

import pytest
from Xlib import display as xdisplay

from desktopd.x11.desktop import X11Desktop
from testbed.capability import have_program, require

pytestmark = pytest.mark.x11

TEXT = "clipboard: héllo 日本語 😀\nsecond line"


@pytest.fixture(autouse=True)
def _xclip() -> None:
    require(have_program("xclip"), "xclip (Debian package xclip)")


def xclip_out(env, target: str | None = None) -> subprocess.CompletedProcess:
    args = ["xclip", "-selection", "clipboard", "-o"] + (["-t", target] if target else [])
    return subprocess.run(args, env=env, capture_output=True, timeout=10)


def test_set_is_readable_by_other_clients(desktop: X11Desktop, x_env) -> None:
    desktop.clipboard_set(TEXT)
    assert xclip_out(x_env).stdout.decode("utf-8") == TEXT
    assert xclip_out(x_env, "UTF8_STRING").stdout.decode("utf-8") == TEXT
    targets = xclip_out(x_env, "TARGETS").stdout.decode().split()
    assert {"TARGETS", "UTF8_STRING", "STRING", "TEXT"} <= set(targets)
    desktop.clipboard_set("plain latin-1: café")
    assert xclip_out(x_env, "STRING").stdout == "plain latin-1: café".encode("latin-1")
    assert desktop.clipboard_get() == "plain latin-1: café"


def test_get_reads_another_owner(desktop: X11Desktop, x_env) -> None:
    for text in (TEXT, "x" * 300_000):  # the long one arrives incrementally (INCR)
        owner = owned_by_xclip(x_env, text)
        try:
            assert desktop.clipboard_get(timeout=5) == text
        finally:
            stop(owner, x_env)


class SelectionWatcher:
    """XFixes selection events: the server's own word that CLIPBOARD changed hands/was lost
    (xclip's "Waiting..." line can precede its buffered SetSelectionOwner)."""

    def __init__(self, display: str) -> None:
        self.dpy = xdisplay.Display(display)
        self.dpy.xfixes_query_version()
        selection = self.dpy.intern_atom("CLIPBOARD")
        self.dpy.xfixes_select_selection_input(self.dpy.screen().root, selection, 0b111)
        self.dpy.sync()

    def wait(self, kind: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            while self.dpy.pending_events():
                if type(self.dpy.next_event()).__name__ == kind:
                    return
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {kind} within {timeout}s"
            select.select([self.dpy.fileno()], [], [], remaining)

    def close(self) -> None:
        self.dpy.close()


def owned_by_xclip(env, text: str) -> subprocess.Popen:
    watcher = SelectionWatcher(env["DISPLAY"])
    owner = subprocess.Popen(["xclip", "-selection", "clipboard", "-i", "-quiet"], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    try:
        owner.stdin.write(text.encode("utf-8"))
        owner.stdin.close()
        watcher.wait("SetSelectionOwnerNotify")
    finally:
        watcher.close()
    return owner


def stop(owner: subprocess.Popen, env) -> None:
    """Kill the owner; return once the server has dropped its selection."""
    watcher = SelectionWatcher(env["DISPLAY"])
    try:
        owner.kill()
        owner.wait(timeout=10)
        owner.stderr.close()
        watcher.wait("SelectionClientCloseNotify")
    finally:
        watcher.close()



def test_nobody_owns_it_after_the_owner_leaves(desktop: X11Desktop, x_env) -> None:
    owner = owned_by_xclip(x_env, "short-lived")
    stop(owner, x_env)  # the selection dies with its owner's connection
    assert desktop.clipboard_get(timeout=1) is None


def test_another_client_takes_it_over(desktop: X11Desktop, x_env) -> None:
    desktop.clipboard_set("mine")
    owner = owned_by_xclip(x_env, "theirs")
    try:
        assert desktop.clipboard_get(timeout=5) == "theirs"  # we saw SelectionClear
    finally:
        stop(owner, x_env)
    desktop.clipboard_set("mine again")
    assert xclip_out(x_env).stdout == b"mine again"


def test_large_text_is_served_incrementally(desktop: X11Desktop, x_env) -> None:
    text = ("ü 日本 " * 100_000)[:700_000]  # ~1.5 MB of UTF-8: many INCR chunks
    desktop.clipboard_set(text)
    assert xclip_out(x_env).stdout.decode("utf-8") == text
    latin = xclip_out(x_env, "STRING").stdout
    assert len(latin) == len(text) and latin.startswith("ü ".encode("latin-1"))
    assert desktop.clipboard_get() == text


def test_too_long_text_is_a_value_error(desktop: X11Desktop) -> None:
    with pytest.raises(ValueError, match="^text:"):
        desktop.clipboard_set("y" * (17 * 1024 * 1024))
