"""Events -> actions, on hand-written event sequences (the X layer is in test_capture_x11.py)."""

from __future__ import annotations

from desktopd.demonstration.coalesce import Coalescer, InputEvent, Timing
from desktopd.demonstration.keymap import CONTROL, SHIFT

# keymap rows (core mapping columns: plain, shift, group 2 plain, group 2 shift, level 3, level 4)
ROWS = {38: (0x61, 0x41), 50: (0xFFE1, 0), 37: (0xFFE3, 0), 65: (0x20, 0x20), 22: (0xFF08, 0xFF08),
        36: (0xFF0D, 0), 48: (0xFE51, 0xFE57), 26: (0x65, 0x45), 23: (0xFF09, 0xFE20)}


class Events:
    def __init__(self) -> None:
        self.t = 1000
        self.c = Coalescer(Timing())
        self.out: list[dict] = []

    def _feed(self, *events: InputEvent) -> None:
        for e in events:
            self.out += self.c.feed(e)

    def key(self, keycode: int, state: int = 0, source: str = "person", gap: int = 30) -> None:
        self.t += gap
        row = ROWS[keycode]
        self._feed(InputEvent("key", True, keycode, 0, 0, state, self.t, source, row),  # type: ignore[arg-type]
                   InputEvent("key", False, keycode, 0, 0, state, self.t + 5, source))  # type: ignore[arg-type]

    def button(self, button: int, x: int, y: int, to: tuple[int, int] | None = None, state: int = 0,
               source: str = "person", gap: int = 500) -> None:
        self.t += gap
        self._feed(InputEvent("button", True, button, x, y, state, self.t, source))  # type: ignore[arg-type]
        end = to or (x, y)
        if to:
            self._feed(InputEvent("motion", False, 0, *end, state, self.t + 10, source))  # type: ignore[arg-type]
        self._feed(InputEvent("button", False, button, *end, state, self.t + 20, source))  # type: ignore[arg-type]

    def actions(self) -> list[dict]:
        return [a["action"] for a in self.out + self.c.flush(None)]


def test_click_text_combo_scroll_drag_in_order() -> None:
    e = Events()
    e.button(1, 100, 200)
    for keycode, state in ((38, SHIFT), (38, 0), (65, 0), (38, 0)):
        e.key(keycode, state)
    e.key(22)                    # backspace takes the last character back
    e.key(38, CONTROL)
    e.button(5, 300, 300)
    e.button(5, 302, 301, gap=50)
    e.button(1, 10, 10, to=(90, 10))
    e.key(36)
    assert e.actions() == [
        {"type": "click", "x": 100, "y": 200, "button": "left", "clicks": 1},
        {"type": "type", "text": "Aa "},
        {"type": "keys", "keys": "ctrl+a"},
        {"type": "scroll", "x": 300, "y": 300, "dx": 0, "dy": 2},
        {"type": "drag", "path": [[10, 10], [90, 10]], "button": "left"},
        {"type": "keys", "keys": "Return"}]


def test_double_click_is_one_click_of_count_two_and_far_clicks_are_two() -> None:
    e = Events()
    e.button(1, 50, 50)
    e.button(1, 51, 50, gap=100)
    e.button(1, 400, 50, gap=100)
    assert e.actions() == [{"type": "click", "x": 50, "y": 50, "button": "left", "clicks": 2},
                           {"type": "click", "x": 400, "y": 50, "button": "left", "clicks": 1}]


def test_dead_key_composes_and_shift_tab_is_a_combo() -> None:
    e = Events()
    e.key(48)        # dead_acute
    e.key(26)        # e
    e.key(23, SHIFT)
    assert e.actions() == [{"type": "type", "text": "é"}, {"type": "keys", "keys": "shift+Tab"}]


def test_sources_do_not_mix_and_keep_their_order() -> None:
    e = Events()
    e.key(38)
    e.key(38, source="agent")
    e.button(1, 5, 5, source="agent")
    e.key(38)
    done = e.out + e.c.flush(None)
    assert [(a["source"], a["action"]["type"]) for a in done] == [
        ("person", "type"), ("agent", "type"), ("agent", "click"), ("person", "type")]


def test_typing_ends_at_its_deadline_not_before() -> None:
    e = Events()
    e.key(38)
    deadline = e.c.deadline_ms()
    assert deadline == e.t + Timing().typing_idle_ms
    assert e.c.flush(deadline - 1) == []
    assert [a["action"] for a in e.c.flush(deadline)] == [{"type": "type", "text": "a"}]


def test_a_lone_modifier_is_a_key() -> None:
    e = Events()
    e.key(37)
    assert e.actions() == [{"type": "keys", "keys": "ctrl"}]
