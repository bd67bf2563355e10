"""The XKB keymap desktopd's virtual keyboard uploads.

Applications read the key's code as well as its symbol (Chromium turns codes such as Home or Up
into their actions whatever symbol they carry, and drops codes it has no name for), so every key
sits where a US keyboard has it: ASCII on its own key (Shift for the upper level), the named keys
(Return, arrows, F-keys, modifiers...) on theirs. Every other symbol (é, Ω, emoji...) goes on a
spare key of its own, on one level, from a pool of codes applications treat as plain character
keys; when the pool runs out, the least recently used symbols make room and the map is uploaded
again (``ensure`` says when)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

MIN_KEYCODE, MAX_KEYCODE = 8, 255          # XKB keycodes; evdev code = keycode - 8

# US layout: evdev code -> (unshifted, shifted) characters.
US_KEYS = {
    2: "1!", 3: "2@", 4: "3#", 5: "4$", 6: "5%", 7: "6^", 8: "7&", 9: "8*", 10: "9(", 11: "0)",
    12: "-_", 13: "=+", 16: "qQ", 17: "wW", 18: "eE", 19: "rR", 20: "tT", 21: "yY", 22: "uU",
    23: "iI", 24: "oO", 25: "pP", 26: "[{", 27: "]}", 30: "aA", 31: "sS", 32: "dD", 33: "fF",
    34: "gG", 35: "hH", 36: "jJ", 37: "kK", 38: "lL", 39: ";:", 40: "'\"", 41: "`~", 43: "\\|",
    44: "zZ", 45: "xX", 46: "cC", 47: "vV", 48: "bB", 49: "nN", 50: "mM", 51: ",<", 52: ".>",
    53: "/?", 57: "  ",
}
# Named keysyms -> their evdev codes.
NAMED = {
    0xFF1B: 1, 0xFF08: 14, 0xFF09: 15, 0xFF0D: 28, 0xFFE3: 29, 0xFFE1: 42, 0xFFE2: 54,
    0xFFAA: 55, 0xFFE9: 56, 0xFFE5: 58, 0xFF7F: 69, 0xFF14: 70, 0xFFE4: 97, 0xFFEA: 100,
    0xFF61: 99, 0xFF50: 102, 0xFF52: 103, 0xFF55: 104, 0xFF51: 105, 0xFF53: 106, 0xFF57: 107,
    0xFF54: 108, 0xFF56: 109, 0xFF63: 110, 0xFFFF: 111, 0xFF13: 119, 0xFFEB: 125, 0xFFEC: 126,
    0xFF67: 127, 0xFF8D: 96, 0xFFE7: 125, 0xFFE8: 126,
    **{0xFFBE + i: code for i, code in enumerate((59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 87, 88))},
}
# Keysyms of the modifiers and the XKB modifier each belongs to.
MODIFIERS = {0xFFE1: "Shift", 0xFFE2: "Shift", 0xFFE3: "Control", 0xFFE4: "Control",
             0xFFE9: "Mod1", 0xFFEA: "Mod1", 0xFFE7: "Mod4", 0xFFE8: "Mod4",
             0xFFEB: "Mod4", 0xFFEC: "Mod4", 0xFE03: "Mod5", 0xFFE5: "Lock", 0xFF7F: "Mod2"}
# Spare keys for every other symbol: the international character keys a US keyboard lacks
# (IntlBackslash, IntlRo, IntlYen) and F13-F24. Not media/browser keys (Chromium acts on their
# codes: a symbol on KEY_CLOSE closed the window) nor codes without a name (Chromium drops them).
SPARE = [86, 89, 124, *range(183, 195)]


@dataclass(frozen=True)
class Stroke:
    """How to type a keysym: the key's evdev code, and whether Shift must be down."""

    code: int
    shift: bool


def _us_table() -> dict[int, Stroke]:
    table: dict[int, Stroke] = {}
    for code, pair in US_KEYS.items():
        table.setdefault(ord(pair[0]), Stroke(code, False))
        table.setdefault(ord(pair[1]), Stroke(code, True))
    return table


US = _us_table()
FIXED = {**US, **{keysym: Stroke(code, False) for keysym, code in NAMED.items()}}


class Keymap:
    def __init__(self) -> None:
        self.spare: OrderedDict[int, int] = OrderedDict()   # keysym -> evdev code, LRU order

    def stroke(self, keysym: int) -> Stroke:
        fixed = FIXED.get(keysym)
        if fixed is not None:
            return fixed
        self.spare.move_to_end(keysym)
        return Stroke(self.spare[keysym], False)

    def ensure(self, keysyms: Iterable[int], held: Iterable[int] = ()) -> bool:
        """Give every keysym a key; True when the map changed (upload it again). Keys down now
        (``held``) keep theirs."""
        wanted = [k for k in dict.fromkeys(keysyms) if k not in FIXED and k not in self.spare]
        if not wanted:
            return False
        keep = {k for k in held if k in self.spare}
        if len(wanted) + len(keep) > len(SPARE):
            raise ValueError(f"text: more than {len(SPARE)} different non-ASCII symbols at once")
        free = [c for c in SPARE if c not in self.spare.values()]
        for keysym in wanted:
            if not free:
                victim = next(k for k in self.spare if k not in keep and k not in wanted)
                free.append(self.spare.pop(victim))
            self.spare[keysym] = free.pop(0)
        return True

    def text(self) -> str:
        """The keymap in XKB's text format (what xkb_keymap_new_from_string reads)."""
        symbols: dict[int, list[int]] = {code: [ord(pair[0]), ord(pair[1])]
                                         for code, pair in US_KEYS.items()}
        for keysym, code in [*NAMED.items(), *self.spare.items()]:
            symbols.setdefault(code, [keysym])
        keycodes = "\n".join(f"    <K{code + 8}> = {code + 8};" for code in sorted(symbols))
        lines = "\n".join(f"    key <K{code + 8}> {{ [ {', '.join(_token(k) for k in syms)} ] }};"
                          for code, syms in sorted(symbols.items()))
        modmap = "\n".join(f"    modifier_map {mod} {{ <K{NAMED[keysym] + 8}> }};"
                           for keysym, mod in MODIFIERS.items() if keysym in NAMED)
        return (
            "xkb_keymap {\n"
            f"  xkb_keycodes \"desktopd\" {{\n    minimum = {MIN_KEYCODE};\n    maximum = {MAX_KEYCODE};\n"
            f"{keycodes}\n  }};\n"
            "  xkb_types \"desktopd\" { include \"complete\" };\n"
            "  xkb_compat \"desktopd\" { include \"complete\" };\n"
            f"  xkb_symbols \"desktopd\" {{\n{lines}\n{modmap}\n  }};\n"
            "};\n")


def _token(keysym: int) -> str:
    # XKB reads 0..9 as the digit keys' keysyms; any other number is the keysym's value.
    return f"0x{keysym:x}"
