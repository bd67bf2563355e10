"""The original desktopd's event batches: POST /api/v1/tablet_event's and /api/v1/keyboard_event's
body models."""

from __future__ import annotations

from collections.abc import Mapping

from httpapi.fields import F, AnyOf, Enum, Int, ListOf, Model

from desktopd.input.models import BUTTONS, KEY_EVENT, coord


def _xy_together(e: Mapping[str, object]) -> tuple[str, str] | None:
    if (e["x"] is None) != (e["y"] is None):
        return ("y" if e["y"] is None else "x"), "x and y go together"
    return None


COMPAT_TABLET_EVENT = Model("CompatTabletEvent", [
    F("type", Enum(("click", "tap", "double_click", "move", "down", "up", "scroll")), required=True),
    F("x", coord("Screen pixels.")),
    F("y", coord("Screen pixels.")),
    F("button", AnyOf([Enum(BUTTONS), Int(1, 9)]), default="left"),
    F("dx", Int(-200, 200), default=0),
    F("dy", Int(-200, 200), default=0),
], check=_xy_together)
# The original's harnesses send whole texts as key events (a 600-character text is 1,200 events):
# batches are bounded by the body size (16 MiB) and run in chunks, not by a small event count.
COMPAT_MAX_EVENTS = 200_000
COMPAT_TABLET_BODY = Model("CompatTabletRequest", [
    F("events", ListOf(COMPAT_TABLET_EVENT, min_items=1, max_items=COMPAT_MAX_EVENTS), required=True),
])
COMPAT_KEYBOARD_BODY = Model("CompatKeyboardRequest", [
    F("events", ListOf(KEY_EVENT, min_items=1, max_items=COMPAT_MAX_EVENTS), required=True),
])
