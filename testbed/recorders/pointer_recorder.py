"""A bare X window that reports every pointer event it gets, with button number and modifier
state (Tk folds wheel buttons 6/7 into 4/5 and hides the state of presses, so this uses Xlib).

400x300 at +100+100 (no window manager in these tests: the position is exact). One JSON object
per event on stdout; "ready" once mapped. Exits when stdin closes.
"""

import json
import select
import sys

from Xlib import X, display

dpy = display.Display()
screen = dpy.screen()
window = screen.root.create_window(
    100, 100, 400, 300, 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
    background_pixel=screen.white_pixel, override_redirect=True,
    event_mask=X.ButtonPressMask | X.ButtonReleaseMask | X.PointerMotionMask | X.StructureNotifyMask)
window.map()
dpy.flush()


def emit(**fields):
    print(json.dumps(fields), flush=True)


KINDS = {X.ButtonPress: "press", X.ButtonRelease: "release", X.MotionNotify: "motion"}
while True:
    while dpy.pending_events():
        event = dpy.next_event()
        if event.type == X.MapNotify:
            emit(ev="ready", id=window.id)
        elif event.type in KINDS:
            detail = event.detail if event.type != X.MotionNotify else 0
            emit(ev=KINDS[event.type], b=detail, x=event.root_x, y=event.root_y, state=event.state)
    readable, _, _ = select.select([dpy.fileno(), sys.stdin], [], [], 1.0)
    if sys.stdin in readable and not sys.stdin.readline():
        break
