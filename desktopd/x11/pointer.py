"""Pointer input through XTEST. Each call ends with a sync, and a button change also waits until
the server has delivered it (see delivery.py: a window manager's grab can hold it back), so when
a call returns the application has the event and later input cannot overtake it."""

from __future__ import annotations

from Xlib import X
from Xlib.ext import xtest

from .delivery import buttons_delivered, wait_until

WHEEL_UP, WHEEL_DOWN, WHEEL_LEFT, WHEEL_RIGHT = 4, 5, 6, 7


class Pointer:
    def __init__(self, xdisplay, width: int, height: int) -> None:
        self._dpy = xdisplay
        self._root = xdisplay.screen().root
        self.width, self.height = width, height
        self.held: set[int] = set()

    def position(self) -> tuple[int, int]:
        reply = self._root.query_pointer()
        return reply.root_x, reply.root_y

    def check(self, x: int, y: int) -> None:
        if not 0 <= x < self.width:
            raise ValueError(f"x: {x} is outside the screen (0..{self.width - 1})")
        if not 0 <= y < self.height:
            raise ValueError(f"y: {y} is outside the screen (0..{self.height - 1})")

    def move(self, x: int, y: int, *, sync: bool = True) -> None:
        self.check(x, y)
        # Absolute motion on the root window of screen 0 (detail=0 means absolute).
        xtest.fake_input(self._dpy, X.MotionNotify, x=x, y=y)
        if sync:
            self._dpy.sync()

    def button(self, button: int, down: bool, *, sync: bool = True) -> None:
        if not 1 <= button <= 9:
            raise ValueError(f"button: {button} is not a pointer button (1..9)")
        xtest.fake_input(self._dpy, X.ButtonPress if down else X.ButtonRelease, detail=button)
        if down:
            self.held.add(button)
        else:
            self.held.discard(button)
        if sync:
            self._dpy.sync()
            self._wait_delivered([button])

    def _wait_delivered(self, buttons: list[int]) -> None:
        wait_until(buttons_delivered(self._root, self.held, buttons), f"pointer buttons {buttons}")

    def scroll(self, dx: int, dy: int) -> None:
        """Wheel clicks: dy>0 scrolls down (button 5), dx>0 scrolls right (button 7)."""
        used = []
        for count, negative, positive in ((dy, WHEEL_UP, WHEEL_DOWN), (dx, WHEEL_LEFT, WHEEL_RIGHT)):
            button = positive if count > 0 else negative
            for _ in range(abs(int(count))):
                xtest.fake_input(self._dpy, X.ButtonPress, detail=button)
                xtest.fake_input(self._dpy, X.ButtonRelease, detail=button)
                used.append(button)
        self._dpy.sync()
        self._wait_delivered(sorted(set(used)))

    def release_all(self) -> None:
        released = sorted(self.held)
        for button in released:
            xtest.fake_input(self._dpy, X.ButtonRelease, detail=button)
        self.held.clear()
        self._dpy.sync()
        self._wait_delivered(released)
