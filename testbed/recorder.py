"""Recorders: real X clients that print what X delivered to them, one JSON object a line, run
with Debian's /usr/bin/python3 (the packages the images use). One client class reads either:

- recorders/tk_recorder.py: a Tk window (red strip, green text area) for keys, buttons, drags
  and the text typed ("text" on stdin prints it);
- recorders/pointer_recorder.py: a plain Xlib window that reports every button number 1-9 with
  the modifier state (Tk folds buttons 6/7 into 4/5).

- recorders/x11_window.py: a Tk window of a given place, colour, title and class that reports
  key downs and ups with their characters, buttons, motion, focus and WM_DELETE_WINDOW.

Events are {"ev": "press"|"release"|"drag"|"motion"|"key"|"text"|"ready", ...} with "b" for a
button number (x11_window.py: {"event": "key_down"|"button_down"|..., "button"}); waits take an
event kind or a predicate.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable

RECORDERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorders")
TK_RECORDER = os.path.join(RECORDERS, "tk_recorder.py")
POINTER_RECORDER = os.path.join(RECORDERS, "pointer_recorder.py")
X11_WINDOW = os.path.join(RECORDERS, "x11_window.py")


class Recorder:
    """A recorder subprocess; ready once it printed its "ready" line. Events read while waiting
    for another one are kept (``seen``) for the next wait, in order."""

    def __init__(self, display: str | None = None, script: str = TK_RECORDER, *args: str,
                 python: str = "/usr/bin/python3", env: dict[str, str] | None = None) -> None:
        self.events: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        self.script = script
        self.process = subprocess.Popen(
            [python, script, *args], env=env or {**os.environ, "DISPLAY": display or ""},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.ready = self.wait_for(lambda e: bool(e.get("ready")) or e.get("ev") == "ready",
                                       timeout=30)
        except AssertionError:
            self.stop()
            raise RuntimeError(f"{os.path.basename(script)} did not come up") from None
        self.window_id = self.ready.get("id")
        self.frame_id = self.ready.get("frame")

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                self.events.put(json.loads(line))
            except json.JSONDecodeError:
                continue
        self.events.put({"ev": "eof", "event": "eof"})

    @staticmethod
    def matcher(what: str | Callable[[dict], bool], button: int | None = None) -> Callable[[dict], bool]:
        """``what``: an event kind ("press", "key", ...) or a predicate of the event."""
        if callable(what):
            return what
        return lambda e: e.get("ev") == what and (button is None or e.get("b") == button)

    def wait_for(self, what: str | Callable[[dict], bool], timeout: float = 10) -> dict:
        """The first event (kept or new) that matches ``what``; the others stay kept."""
        match = self.matcher(what)
        for event in self.seen:
            if match(event):
                self.seen.remove(event)
                return event
        deadline = time.monotonic() + timeout
        while True:
            event = self._next(deadline, timeout)
            if match(event):
                return event
            self.seen.append(event)
            if event.get("event") == "eof":
                raise AssertionError(f"the recorder exited; saw {self.seen[-20:]}")

    def collect_until(self, what: str | Callable[[dict], bool], timeout: float = 10) -> list[dict]:
        """Every event (kept, then new) up to and including the first that matches ``what``."""
        match = self.matcher(what)
        events, self.seen = self.seen, []
        for index, event in enumerate(events):
            if match(event):
                self.seen = events[index + 1:]
                return events[:index + 1]
        deadline = time.monotonic() + timeout
        while True:
            event = self._next(deadline, timeout, events)
            events.append(event)
            if match(event) or event.get("event") == "eof":
                return events

    def collect(self, until: str, until_b: int | None = None, timeout: float = 10) -> list[dict]:
        """Events up to and including the first ``until`` event (with button ``until_b``)."""
        return self.collect_until(self.matcher(until, until_b), timeout)

    def _next(self, deadline: float, timeout: float, got: list[dict] | None = None) -> dict:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no matching event within {timeout} s; saw {(got or self.seen)[-20:]}")
        try:
            return self.events.get(timeout=remaining)
        except queue.Empty:
            raise AssertionError(f"no matching event within {timeout} s; saw "
                                 f"{(got or self.seen)[-20:]}") from None

    def presses(self, count: int, timeout: float = 10) -> list[dict]:
        """The next ``count`` button presses."""
        return [self.wait_for("press", timeout) for _ in range(count)]

    def text(self) -> str:
        """What the Tk recorder's text area holds now (everything typed before this call)."""
        self.process.stdin.write("text\n")
        self.process.stdin.flush()
        return self.wait_for("text")["text"]

    def drain(self) -> None:
        """Forget every event received so far."""
        self.seen.clear()
        while not self.events.empty():
            self.events.get_nowait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:        # the Tk and pointer recorders end at EOF on stdin; x11_window.py does not
                self.process.wait(timeout=0.1 if self.script == X11_WINDOW else 10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._reader.join(timeout=10)          # EOF once the process is gone
        for pipe in (self.process.stdin, self.process.stdout):
            if not pipe.closed:
                pipe.close()
