"""Input events -> the actions an agent would send (desktopd's own action format): click
(button, count, modifiers), drag (from, to), scroll (at, dx, dy), typed text (the string the keys
produced) and key combinations. Pure: events in, finished actions out; what may still grow (a
click that may become a double click, text being typed, a scroll still turning) waits until its
deadline (``deadline_ms``) or until an event that cannot belong to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .keymap import (DEAD_MARKS, MODIFIER_KEYSYMS, compose, held_modifiers,
                     key_name, keysym_at, keysym_char)

Source = Literal["person", "agent"]
Kind = Literal["key", "button", "motion"]
WHEEL = {4: (0, -1), 5: (0, 1), 6: (-1, 0), 7: (1, 0)}   # button -> (dx, dy) in wheel clicks
BUTTON_NAMES = {1: "left", 2: "middle", 3: "right"}
BACKSPACE = 0xFF08


@dataclass(frozen=True)
class InputEvent:
    """One device event as the X server delivered it."""
    kind: Kind
    down: bool
    detail: int          # keycode, or button
    x: int               # the pointer, root (screen) pixels
    y: int
    state: int           # modifier and button mask before the event
    time_ms: int         # the server's timestamp
    source: Source
    row: tuple[int, ...] = ()   # keys: the keycode's keymap row when it was pressed


@dataclass
class Timing:
    double_click_ms: int = 400    # a second click within this, near the first: one click, count 2
    click_slop_px: int = 5        # further than this between press and release: a drag
    typing_idle_ms: int = 1000    # typed text ends after this long without a key
    scroll_idle_ms: int = 500     # wheel clicks closer than this in time and place add up
    scroll_slop_px: int = 20


@dataclass
class Pending:
    """An action that may still grow."""
    action: dict
    source: Source
    start_ms: int
    last_ms: int
    events: int = 1


@dataclass
class Coalescer:
    timing: Timing = field(default_factory=Timing)
    done: list[dict] = field(default_factory=list)
    _text: Pending | None = None
    _dead: str | None = None
    _click: Pending | None = None
    _scroll: Pending | None = None
    _press: InputEvent | None = None
    _lone_modifier: InputEvent | None = None
    pointer: tuple[int, int] = (0, 0)

    def feed(self, event: InputEvent) -> list[dict]:
        """The actions ``event`` completed (often none)."""
        self.pointer = (event.x, event.y)
        if event.kind == "key":
            self._key(event)
        elif event.kind == "button":
            self._button(event)
        return self._take()

    def deadline_ms(self) -> int | None:
        """Server time at which ``flush`` finishes what is pending (None: nothing is)."""
        t = self.timing
        times = [p.last_ms + wait for p, wait in ((self._text, t.typing_idle_ms), (self._click, t.double_click_ms),
                                                  (self._scroll, t.scroll_idle_ms)) if p is not None]
        return min(times) if times else None

    def flush(self, now_ms: int | None = None) -> list[dict]:
        """Finishes what waited past its deadline by ``now_ms`` (everything when None)."""
        t = self.timing
        for name, wait in (("_text", t.typing_idle_ms), ("_click", t.double_click_ms), ("_scroll", t.scroll_idle_ms)):
            pending = getattr(self, name)
            if pending is not None and (now_ms is None or now_ms >= pending.last_ms + wait):
                self._emit(name)
        return self._take()

    # ------------------------------------------------------------------ internals
    def _take(self) -> list[dict]:
        out, self.done = self.done, []
        return out

    def _emit(self, name: str) -> None:
        pending: Pending | None = getattr(self, name)
        setattr(self, name, None)
        if name == "_text":
            if self._dead is not None and pending is not None:
                pending.action["text"] += self._dead.strip()
            self._dead = None
        if pending is None or (name == "_text" and not pending.action["text"]):
            return
        self.done.append({"source": pending.source, "action": pending.action, "start_ms": pending.start_ms,
                          "end_ms": pending.last_ms, "events": pending.events})

    def _finish_all(self) -> None:
        for name in ("_text", "_click", "_scroll"):
            self._emit(name)

    def _single(self, action: dict, event: InputEvent, start_ms: int | None = None, events: int = 1) -> None:
        self.done.append({"source": event.source, "action": action,
                          "start_ms": event.time_ms if start_ms is None else start_ms,
                          "end_ms": event.time_ms, "events": events})

    def _key(self, event: InputEvent) -> None:
        lone = self._lone_modifier
        if not event.down:
            # A modifier pressed and released with nothing between is a key of its own (super).
            if lone is not None and lone.detail == event.detail:
                self._finish_all()
                self._single({"type": "keys", "keys": key_name(list(lone.row))}, event, lone.time_ms)
            self._lone_modifier = None
            return
        row = list(event.row)
        sym = keysym_at(row, event.state)
        if sym in MODIFIER_KEYSYMS:
            self._lone_modifier = event
            return
        self._lone_modifier = None
        held = held_modifiers(event.state)
        char = keysym_char(sym)
        if self._text is not None and self._text.source != event.source:
            self._emit("_text")
        if not set(held) - {"shift"} and (char is not None or sym in DEAD_MARKS):
            self._type(event, sym, char)
            return
        if sym == BACKSPACE and not held and self._text is not None and self._text.action["text"]:
            self._text.action["text"] = self._text.action["text"][:-1]
            self._text.last_ms, self._text.events = event.time_ms, self._text.events + 1
            return
        self._finish_all()
        # shift alone is part of a combination only with a key that types nothing (shift+Tab).
        names = held if set(held) - {"shift"} or char is None else []
        self._single({"type": "keys", "keys": "+".join([*names, key_name(row)])}, event)

    def _type(self, event: InputEvent, sym: int, char: str | None) -> None:
        if self._click is not None or self._scroll is not None:
            self._emit("_click")
            self._emit("_scroll")
        if self._text is None:
            self._text = Pending({"type": "type", "text": ""}, event.source, event.time_ms, event.time_ms, 0)
        text = self._text
        text.last_ms, text.events = event.time_ms, text.events + 1
        if sym in DEAD_MARKS:
            if self._dead is not None:          # two dead keys: the first stands alone
                text.action["text"] += self._dead.strip()
            self._dead = DEAD_MARKS[sym]
            return
        assert char is not None
        if self._dead is not None:
            char, self._dead = compose(self._dead, char), None
        text.action["text"] += char

    def _button(self, event: InputEvent) -> None:
        self._lone_modifier = None     # ctrl+click: ctrl was not a key of its own
        if event.detail in WHEEL:
            if event.down:
                self._wheel(event)
            return
        if event.detail not in BUTTON_NAMES:
            return
        if event.down:
            self._emit("_text")
            self._emit("_scroll")
            if self._click is not None and not self._continues_click(event):
                self._emit("_click")
            self._press = event
            return
        press, self._press = self._press, None
        if press is None or press.detail != event.detail:
            return
        button = BUTTON_NAMES[event.detail]
        modifiers = held_modifiers(press.state)
        if max(abs(event.x - press.x), abs(event.y - press.y)) > self.timing.click_slop_px:
            self._emit("_click")
            action: dict[str, object] = {"type": "drag", "path": [[press.x, press.y], [event.x, event.y]],
                                         "button": button}
            if modifiers:
                action["modifiers"] = modifiers
            self._single(action, event, press.time_ms, 2)
            return
        if self._click is not None and self._continues_click(press):
            self._click.action["clicks"] += 1
            self._click.last_ms, self._click.events = event.time_ms, self._click.events + 2
            return
        self._emit("_click")
        action = {"type": "click", "x": press.x, "y": press.y, "button": button, "clicks": 1}
        if modifiers:
            action["modifiers"] = modifiers
        self._click = Pending(action, event.source, press.time_ms, event.time_ms, 2)

    def _continues_click(self, press: InputEvent) -> bool:
        click = self._click
        assert click is not None
        a = click.action
        return (click.source == press.source and a["button"] == BUTTON_NAMES.get(press.detail)
                and press.time_ms - click.last_ms <= self.timing.double_click_ms
                and max(abs(press.x - a["x"]), abs(press.y - a["y"])) <= self.timing.click_slop_px)

    def _wheel(self, event: InputEvent) -> None:
        self._emit("_text")
        self._emit("_click")
        dx, dy = WHEEL[event.detail]
        scroll = self._scroll
        t = self.timing
        if scroll is not None and (scroll.source != event.source or event.time_ms - scroll.last_ms > t.scroll_idle_ms
                                   or max(abs(event.x - scroll.action["x"]),
                                          abs(event.y - scroll.action["y"])) > t.scroll_slop_px):
            self._emit("_scroll")
            scroll = None
        if scroll is None:
            self._scroll = scroll = Pending({"type": "scroll", "x": event.x, "y": event.y, "dx": 0, "dy": 0},
                                            event.source, event.time_ms, event.time_ms, 0)
        scroll.action["dx"] += dx
        scroll.action["dy"] += dy
        scroll.last_ms, scroll.events = event.time_ms, scroll.events + 1


