"""The input layer's events and requests, typed: what POINTER_EVENT, KEY_EVENT and KEYBOARD_BODY
(desktopd/input/models.py) validate to, every field present (absent optional ones None). The models
validate to plain dicts; the ``as_*`` functions below are where those dicts (or events built in
the same shape, as desktopd/compat/ does) are read as these types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict, cast


class PointXY(TypedDict):
    x: int
    y: int


class PointerEvent(TypedDict):
    action: str                  # POINTER_ACTIONS
    x: int | None
    y: int | None
    button: str | int            # left/middle/right or an X button number
    clicks: int
    path: list[list[int] | PointXY] | None   # [x, y] or {"x", "y"}
    duration_ms: int
    dx: int
    dy: int
    modifiers: list[str]


class KeyEvent(TypedDict):
    keysym: str | int            # a key name or a keysym number
    state: str                   # "down" or "up"


class KeyboardRequest(TypedDict):
    text: str | None
    keys: str | list[str] | None
    action: str                  # "press", "down" or "up"
    events: list[KeyEvent] | None
    delay_ms: float


def as_pointer_events(events: Sequence[Mapping[str, object]]) -> list[PointerEvent]:
    return cast(list[PointerEvent], list(events))


def as_key_events(events: Sequence[Mapping[str, object]]) -> list[KeyEvent]:
    return cast(list[KeyEvent], list(events))


def as_keyboard_request(body: Mapping[str, object]) -> KeyboardRequest:
    return cast(KeyboardRequest, body)
