"""The XKB keymap desktopd's virtual keyboard uploads: one keycode per keysym, one level each.

A keysym on a key of its own types exactly that symbol with no modifier held, so any Unicode text
is typed as it is (as wtype does). Modifier keysyms sit in their XKB modifier maps so that a held
Control really is Control to the compositor and the clients. The map starts with ASCII, the
named keys and the modifiers, and grows when text needs another symbol; when the keycodes run
out it is rebuilt around the symbols in use."""

from __future__ import annotations

from collections.abc import Iterable

MIN_KEYCODE, MAX_KEYCODE = 8, 255          # XKB keycodes; evdev code = keycode - 8
# Keysyms of the modifiers and the XKB modifier each belongs to.
MODIFIERS = {0xFFE1: "Shift", 0xFFE2: "Shift", 0xFFE3: "Control", 0xFFE4: "Control",
             0xFFE9: "Mod1", 0xFFEA: "Mod1", 0xFFE7: "Mod1", 0xFFE8: "Mod1",
             0xFFEB: "Mod4", 0xFFEC: "Mod4", 0xFE03: "Mod5", 0xFFE5: "Lock", 0xFF7F: "Mod2"}
# Return, Tab, BackSpace, Escape, Delete, arrows, Home/End/PageUp/PageDown, Insert, F1-F12, Menu.
NAMED = [0xFF0D, 0xFF09, 0xFF08, 0xFF1B, 0xFFFF, 0xFF51, 0xFF52, 0xFF53, 0xFF54, 0xFF50,
         0xFF57, 0xFF55, 0xFF56, 0xFF63, 0xFF67, *range(0xFFBE, 0xFFCA)]
BASE = [*MODIFIERS, *NAMED, *range(0x20, 0x7F)]


class Keymap:
    def __init__(self) -> None:
        self.codes: dict[int, int] = {}
        self._assign(BASE)

    def _assign(self, keysyms: Iterable[int]) -> None:
        for keysym in keysyms:
            if keysym not in self.codes:
                self.codes[keysym] = MIN_KEYCODE + len(self.codes)

    def ensure(self, keysyms: Iterable[int], held: Iterable[int] = ()) -> bool:
        """Give every keysym a keycode; True when the map changed (upload it again). Keysyms in
        ``held`` (keys down now) keep their keycodes when the map is rebuilt."""
        wanted = list(dict.fromkeys(keysyms))
        missing = [k for k in wanted if k not in self.codes]
        if not missing:
            return False
        if len(self.codes) + len(missing) > MAX_KEYCODE - MIN_KEYCODE + 1:
            keep = list(dict.fromkeys([*BASE, *held, *wanted]))
            if len(keep) > MAX_KEYCODE - MIN_KEYCODE + 1:
                raise ValueError(f"text: more than {MAX_KEYCODE - MIN_KEYCODE + 1} different "
                                 "symbols in one request")
            old = {k: self.codes[k] for k in held if k in self.codes}
            self.codes = {}
            self._assign(old)            # held keys stay where the compositor thinks they are
            self._assign(keep)
            return True
        self._assign(missing)
        return True

    def evdev(self, keysym: int) -> int:
        return self.codes[keysym] - MIN_KEYCODE

    def text(self) -> str:
        """The keymap in XKB's text format (what xkb_keymap_new_from_string reads)."""
        keycodes = "\n".join(f"    <K{code}> = {code};" for code in sorted(self.codes.values()))
        symbols = "\n".join(f"    key <K{code}> {{ [ {_keysym_token(keysym)} ] }};"
                            for keysym, code in self.codes.items())
        modmap = "\n".join(f"    modifier_map {mod} {{ <K{self.codes[keysym]}> }};"
                           for keysym, mod in MODIFIERS.items() if keysym in self.codes)
        return (
            "xkb_keymap {\n"
            f"  xkb_keycodes \"desktopd\" {{\n    minimum = {MIN_KEYCODE};\n    maximum = {MAX_KEYCODE};\n"
            f"{keycodes}\n  }};\n"
            "  xkb_types \"desktopd\" { include \"complete\" };\n"
            "  xkb_compat \"desktopd\" { include \"complete\" };\n"
            f"  xkb_symbols \"desktopd\" {{\n{symbols}\n{modmap}\n  }};\n"
            "};\n")


def _keysym_token(keysym: int) -> str:
    # XKB reads 0..9 as the digit keys' keysyms; any other number is the keysym's value.
    return f"0x{keysym:x}"
