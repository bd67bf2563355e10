"""What a key press produced under the keymap in force: its keysym at the pressed modifiers'
level, the character it types (dead keys compose with the next one), and its xdotool name."""

from __future__ import annotations

import unicodedata

from Xlib import X

from desktopd.x11.keynames import keysym_name

SHIFT, LOCK, CONTROL, ALT, SUPER, LEVEL3 = X.ShiftMask, X.LockMask, X.ControlMask, X.Mod1Mask, X.Mod4Mask, X.Mod5Mask
# Keysyms of modifier keys (Shift_L .. Hyper_R, ISO_Level3_Shift, Mode_switch): no action alone.
MODIFIER_KEYSYMS = frozenset(range(0xFFE1, 0xFFEF)) | {0xFE03, 0xFF7E}
MODIFIER_NAMES = {0xFFE1: "shift", 0xFFE2: "shift", 0xFFE3: "ctrl", 0xFFE4: "ctrl", 0xFFE9: "alt",
                  0xFFEA: "alt", 0xFFEB: "super", 0xFFEC: "super", 0xFFE7: "meta", 0xFFE8: "meta"}
# Dead keysyms (0xFE50..) -> the combining mark they put on the next character.
DEAD_MARKS = {0xFE50: "\u0300", 0xFE51: "\u0301", 0xFE52: "\u0302", 0xFE53: "\u0303", 0xFE54: "\u0304",
              0xFE55: "\u0306", 0xFE56: "\u0307", 0xFE57: "\u0308", 0xFE58: "\u030A", 0xFE59: "\u030B",
              0xFE5A: "\u030C", 0xFE5B: "\u0327", 0xFE5C: "\u0328"}


def level_index(state: int) -> int:
    """The core keymap column for a modifier state: group 1 levels 1/2 are columns 0/1, the
    third/fourth levels (AltGr, on Mod5) columns 4/5."""
    return (4 if state & LEVEL3 else 0) + (1 if state & SHIFT else 0)


def keysym_at(row: list[int], state: int) -> int:
    """The keysym a keycode's keymap ``row`` gives at ``state`` (Caps Lock upper-cases letters)."""
    index = level_index(state)
    sym = row[index] if index < len(row) else 0
    if not sym and index % 2 == 1:
        base = row[index - 1] if index - 1 < len(row) else 0
        sym = ord(chr(base).upper()) if 0x61 <= base <= 0x7A else base
    if not sym and row:
        sym = row[0]
    if state & LOCK and 0x61 <= sym <= 0x7A:
        sym -= 0x20
    return sym


def keysym_char(keysym: int) -> str | None:
    """The character a keysym types (Latin-1 and Unicode keysyms; space), else None."""
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if 0x1000100 <= keysym <= 0x110FFFF:
        return chr(keysym - 0x1000000)
    if 0xFFB0 <= keysym <= 0xFFB9:   # the keypad's digits
        return chr(keysym - 0xFFB0 + 0x30)
    return None


def compose(mark: str, char: str) -> str:
    """A dead key's mark on the next character (é from dead_acute + e); the mark alone when the
    two do not compose into one character."""
    joined = unicodedata.normalize("NFC", char + mark)
    return joined if len(joined) == 1 else unicodedata.normalize("NFC", mark) + char


def key_name(row: list[int]) -> str:
    """The xdotool name of a key for a combination: its unshifted keysym (ctrl+a, not ctrl+A)."""
    sym = row[0] if row and row[0] else (row[1] if len(row) > 1 else 0)
    if sym in MODIFIER_NAMES:
        return MODIFIER_NAMES[sym]
    char = keysym_char(sym)
    if char is not None and char != " ":
        return char.lower()
    return keysym_name(sym)


def held_modifiers(state: int) -> list[str]:
    """The modifiers a key state holds, in xdotool's order (shift only said alongside others)."""
    return [name for mask, name in ((CONTROL, "ctrl"), (ALT, "alt"), (SUPER, "super"), (SHIFT, "shift"))
            if state & mask]
