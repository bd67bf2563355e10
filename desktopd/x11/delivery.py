"""Waiting until the X server has delivered the input desktopd sent, not only processed it.

XSync returns once the server has processed our XTEST requests, but a device can be *frozen*:
a window manager that grabs button presses synchronously (click-to-focus and raise-on-click, as
xfwm4 does) receives a press first, and the server holds every later pointer event in its queue
until the manager replays the press (XAllowEvents ReplayPointer). The keyboard is not frozen, so
keys typed right after a click reached the application before the click did.

The server updates a device's state (QueryPointer's buttons, QueryKeymap) only as it takes events
off that queue. A state that shows each button or key an action released as up, and each one it
holds as down, is therefore evidence that the action, and everything sent before it, has reached
the application. X sends no event for that moment, so this reads the state: once at once (a
device that was not frozen costs one round trip), then after short, growing pauses.

A press alone cannot be confirmed this way: the grab that freezes the device takes the press,
and the state says "down" before the application got it. Its release, which every click and
drag ends with, waits for both.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from Xlib import X

log = logging.getLogger(__name__)

# Core QueryPointer reports buttons 1-5 (wheel buttons 6-9 have no bit).
BUTTON_MASKS = {1: X.Button1Mask, 2: X.Button2Mask, 3: X.Button3Mask, 4: X.Button4Mask,
                5: X.Button5Mask}
# A window manager replays a press within milliseconds; this long means it never will.
DELIVERY_TIMEOUT_S = 5.0
FIRST_PAUSE_S = 0.0002
LONGEST_PAUSE_S = 0.005


def wait_until(delivered: Callable[[], bool], what: str) -> bool:
    """Poll ``delivered`` until it is true (True) or the timeout passed (False, logged)."""
    deadline = time.monotonic() + DELIVERY_TIMEOUT_S
    pause = FIRST_PAUSE_S
    while not delivered():
        if time.monotonic() > deadline:
            log.warning("%s: not delivered after %.0f s (a client holds the device frozen)",
                        what, DELIVERY_TIMEOUT_S)
            return False
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_S)
    return True


def buttons_delivered(root, held: set[int], touched: Iterable[int]) -> Callable[[], bool]:
    """A check: every touched button (1-5) is down exactly when ``held`` has it."""
    watched = [b for b in touched if b in BUTTON_MASKS]

    def check() -> bool:
        if not watched:
            return True
        mask = root.query_pointer().mask
        return all(bool(mask & BUTTON_MASKS[b]) == (b in held) for b in watched)
    return check


def keys_delivered(xdisplay, held: set[int], touched: Iterable[int]) -> Callable[[], bool]:
    """A check: every touched keycode is down exactly when ``held`` has it."""
    watched = list(touched)

    def check() -> bool:
        if not watched:
            return True
        keymap = xdisplay.query_keymap()
        return all(bool(keymap[kc // 8] & (1 << (kc % 8))) == (kc in held) for kc in watched)
    return check
