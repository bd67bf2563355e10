"""Recorders: real X clients that print what X delivered to them, one JSON object a line, run
with Debian's /usr/bin/python3 (the packages the images use). One client class reads either:

- recorders/tk_recorder.py: a Tk window (red strip, green text area) for keys, buttons, drags
  and the text typed ("text" on stdin prints it);
- recorders/pointer_recorder.py: a plain Xlib window that reports every button number 1-9 with
  the modifier state (Tk folds buttons 6/7 into 4/5).

Events are {"ev": "press"|"release"|"drag"|"motion"|"key"|"text"|"ready", ...} with "b" for a
button number.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading

RECORDERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorders")
TK_RECORDER = os.path.join(RECORDERS, "tk_recorder.py")
POINTER_RECORDER = os.path.join(RECORDERS, "pointer_recorder.py")


class Recorder:
    """A recorder subprocess on ``display``; ready once it printed "ready"."""

    def __init__(self, display: str, script: str = TK_RECORDER, *args: str) -> None:
        self.events: queue.Queue[dict] = queue.Queue()
        self.process = subprocess.Popen(
            ["/usr/bin/python3", script, *args], env={**os.environ, "DISPLAY": display},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        try:
            ready = self.wait_for("ready", timeout=30)
        except queue.Empty:
            self.stop()
            raise RuntimeError(f"{os.path.basename(script)} did not come up") from None
        self.window_id = ready.get("id")
        self.frame_id = ready.get("frame")

    def _read(self) -> None:
        for line in self.process.stdout:
            self.events.put(json.loads(line))

    def wait_for(self, kind: str, timeout: float = 10) -> dict:
        """The next event of ``kind`` (earlier ones of other kinds are dropped)."""
        while True:
            event = self.events.get(timeout=timeout)
            if event["ev"] == kind:
                return event

    def collect(self, until: str, until_b: int | None = None, timeout: float = 10) -> list[dict]:
        """Events up to and including the first ``until`` event (with button ``until_b``)."""
        out = []
        while True:
            event = self.events.get(timeout=timeout)
            out.append(event)
            if event["ev"] == until and (until_b is None or event.get("b") == until_b):
                return out

    def presses(self, count: int, timeout: float = 10) -> list[dict]:
        """The next ``count`` button presses (other events dropped)."""
        return [self.wait_for("press", timeout) for _ in range(count)]

    def text(self) -> str:
        """What the Tk recorder's text area holds now (everything typed before this call)."""
        self.process.stdin.write("text\n")
        self.process.stdin.flush()
        return self.wait_for("text")["text"]

    def drain(self) -> None:
        while not self.events.empty():
            self.events.get_nowait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for pipe in (self.process.stdin, self.process.stdout):
            if not pipe.closed:
                pipe.close()
