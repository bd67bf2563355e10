"""Typing into xterm, a second real X client with its own keymap handling (no Tk, no XIM)."""

from __future__ import annotations

import subprocess
import time

import pytest

from desktopd.x11.desktop import X11Desktop
from testbed.capability import have_program, require

pytestmark = pytest.mark.x11


def test_xterm_receives_unicode_text_exactly(desktop: X11Desktop, x_env, tmp_path) -> None:
    require(have_program("xterm"), "xterm (Debian package xterm)")
    out = tmp_path / "typed.txt"
    # The shell reads one line from the terminal (canonical mode) and writes it to a file.
    term = subprocess.Popen(
        ["xterm", "-u8", "-geometry", "80x10+0+0", "-title", "typing-target", "-e", "sh", "-c",
         f"IFS= read -r line; printf '%s' \"$line\" > '{out}.tmp' && mv '{out}.tmp' '{out}'"],
        env=x_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not any(w["title"] == "typing-target" and w["visible"] for w in desktop.windows()):
            assert time.monotonic() < deadline, "xterm did not map its window"
            time.sleep(0.05)  # bounded: another program's startup has no signal we can wait on
        window = next(w for w in desktop.windows() if w["title"] == "typing-target")
        desktop.pointer_move(window["client"]["x"] + 20, window["client"]["y"] + 20)
        text = "Hello, xterm! àéîõü ß € 日本語 😀 {}[]~"
        desktop.type_text(text + "\n")
        term.wait(timeout=20)  # the shell exits after the line: xterm closes
        assert out.read_text(encoding="utf-8") == text
    finally:
        if term.poll() is None:
            term.kill()
            term.wait(timeout=10)
