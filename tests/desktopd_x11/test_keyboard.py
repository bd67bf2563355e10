"""Typed text and key combos arrive exactly in a real Tk client, Unicode included."""

from __future__ import annotations

import pytest
from Xlib import display as xdisplay

from desktopd.x11.desktop import X11Desktop

pytestmark = pytest.mark.x11

SHIFT, CONTROL = 1, 4


@pytest.fixture
def recorder(start_recorder, desktop: X11Desktop):
    recorder = start_recorder("400x300+100+100")
    desktop.pointer_move(300, 250)  # no WM: keyboard focus follows the pointer
    return recorder


def typed(recorder, marker: str = "F12") -> str:
    """The characters the client received up to the end marker key."""
    events = recorder.collect_until(lambda e: e.get("event") == "key_down"
                                    and e.get("keysym") == marker)
    return "".join(e["char"] for e in events if e.get("event") == "key_down")


def type_and_read(desktop: X11Desktop, recorder, text: str) -> str:
    desktop.type_text(text)
    desktop.key("F12", True)
    desktop.key("F12", False)
    return typed(recorder)


@pytest.mark.parametrize("text", [
    "hello world",
    "Hello, World! ~`@#$%^&*()_+-={}[]|\\:\";'<>?,./",
    "line one\nline two\n",
    "àéîõü ñ ç ß å ø æ ÿ",          # Latin-1: in no US keymap
    "ąčęłńśźż őű ğış",               # Latin Extended
    "日本語のテキスト 中文 한국어",        # CJK
    "emoji 😀👍🏽 🚀 and € ™ ∑ → ☃",   # beyond the BMP, and symbols
])
def test_type_text_arrives_exactly(desktop: X11Desktop, recorder, text: str) -> None:
    got = type_and_read(desktop, recorder, text)
    assert got == text.replace("\n", "\r")  # Tk reports Return as "\r"


def test_more_distinct_unmapped_characters_than_scratch_keycodes(desktop: X11Desktop, recorder) -> None:
    text = "".join(chr(0x4E00 + i * 7) for i in range(60))  # 60 distinct CJK ideographs
    assert type_and_read(desktop, recorder, text) == text


def test_no_modifier_is_left_held(desktop: X11Desktop, recorder, xserver) -> None:
    type_and_read(desktop, recorder, "ABC!@# ü 日")
    dpy = xdisplay.Display(xserver.display)
    try:
        assert dpy.screen().root.query_pointer().mask & 0xFF == 0
        keys = dpy.query_keymap()
        assert not any(keys), "a key is still pressed"
    finally:
        dpy.close()


def test_key_combo_sends_modifiers_in_order(desktop: X11Desktop, recorder) -> None:
    names = ["ctrl", "shift", "t"]
    for name in names:
        desktop.key(name, True)
    for name in reversed(names):
        desktop.key(name, False)
    events = recorder.collect_until(lambda e: e.get("event") == "key_up"
                                    and e.get("keysym") == "Control_L")
    downs = [e for e in events if e.get("event") == "key_down"]
    assert [e["keysym"] for e in downs][:2] == ["Control_L", "Shift_L"]
    assert downs[2]["keysym"] in ("t", "T") and len(downs) == 3  # Tk folds case under Control
    assert downs[-1]["state"] & (SHIFT | CONTROL) == SHIFT | CONTROL
    ups = [e["keysym"] for e in events if e.get("event") == "key_up"]
    assert [u.lower() for u in ups] == ["t", "shift_l", "control_l"]


@pytest.mark.parametrize("name, keysym", [
    ("Return", "Return"), ("enter", "Return"), ("esc", "Escape"), ("Tab", "Tab"),
    ("BackSpace", "BackSpace"), ("delete", "Delete"), ("Left", "Left"), ("pageup", "Prior"),
    ("F5", "F5"), ("KP_Enter", "KP_Enter"), ("super", "Super_L"), ("alt", "Alt_L"),
    ("é", "eacute"), ("F20", "F20"),
])
def test_named_keys_reach_the_client(desktop: X11Desktop, recorder, name: str, keysym: str) -> None:
    desktop.key(name, True)
    desktop.key(name, False)
    event = recorder.wait_for(lambda e: e.get("event") == "key_down")
    assert event["keysym"] == keysym


def test_hold_a_shifted_key_between_down_and_up(desktop: X11Desktop, recorder) -> None:
    desktop.key("A", True)
    desktop.key("A", False)
    events = recorder.collect_until(lambda e: e.get("event") == "key_up" and e["keysym"] == "Shift_L")
    assert [e["char"] for e in events if e.get("event") == "key_down"] == ["", "A"]


def test_unknown_key_name_is_a_value_error(desktop: X11Desktop) -> None:
    with pytest.raises(ValueError, match="nosuchkey"):
        desktop.key("nosuchkey", True)


def test_control_characters_are_rejected_before_typing(desktop: X11Desktop, recorder) -> None:
    with pytest.raises(ValueError, match="^text:"):
        desktop.type_text("ok\x07")
    assert type_and_read(desktop, recorder, "x") == "x"  # nothing of "ok" was typed


def test_scratch_keycodes_are_restored(desktop: X11Desktop, recorder, xserver) -> None:
    def unicode_keysyms() -> set[int]:
        dpy = xdisplay.Display(xserver.display)
        try:
            info = dpy.display.info
            mapping = dpy.get_keyboard_mapping(info.min_keycode, info.max_keycode - info.min_keycode + 1)
            return {sym for row in mapping for sym in row if sym >= 0x1000000}
        finally:
            dpy.close()

    before = unicode_keysyms()
    type_and_read(desktop, recorder, "日本😀")
    assert 0x10065E5 in unicode_keysyms() - before  # 日 is mapped while typing may continue
    desktop.executor.submit(desktop._keyboard.restore_scratch).result(timeout=10)
    assert unicode_keysyms() == before
    assert type_and_read(desktop, recorder, "語") == "語"  # and the pool still works


def test_combo_uses_the_real_key_so_shift_changes_the_letter(desktop: X11Desktop, recorder) -> None:
    # xdotool and a physical keyboard: Shift held + the "b" key gives "B", not a literal "b".
    desktop.key("shift", True)
    desktop.key("b", True)
    desktop.key("b", False)
    desktop.key("A", True)   # a level-1 keysym while Shift is already held...
    desktop.key("A", False)  # ...must not release the user's Shift
    desktop.key("shift", False)
    events = recorder.collect_until(lambda e: e.get("event") == "key_up"
                                    and e.get("keysym") == "Shift_L")
    downs = [(e["keysym"], e["char"]) for e in events if e.get("event") == "key_down"]
    assert downs == [("Shift_L", ""), ("B", "B"), ("A", "A")]
    ups = [e["keysym"] for e in events if e.get("event") == "key_up"]
    assert ups == ["B", "A", "Shift_L"]
