"""xdotool-compatible key names -> X keysyms, and characters -> keysyms."""

from __future__ import annotations

import functools
import unicodedata

from Xlib import XK

_GROUPS = ("miscellany", "xkb", "latin1", "latin2", "latin3", "latin4", "greek", "cyrillic",
           "katakana", "arabic", "hebrew", "thai", "korean", "technical", "special",
           "publishing", "apl", "xf86", "xk3270")

# Friendly names (case-insensitive), as xdotool and most agent harnesses spell them.
ALIASES = {
    "ctrl": "Control_L", "control": "Control_L", "lctrl": "Control_L", "rctrl": "Control_R",
    "alt": "Alt_L", "lalt": "Alt_L", "ralt": "Alt_R", "altgr": "ISO_Level3_Shift",
    "shift": "Shift_L", "lshift": "Shift_L", "rshift": "Shift_R",
    "super": "Super_L", "win": "Super_L", "windows": "Super_L", "cmd": "Super_L",
    "command": "Super_L", "meta": "Meta_L",
    "enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape", "tab": "Tab",
    "backspace": "BackSpace", "bksp": "BackSpace", "del": "Delete", "delete": "Delete",
    "ins": "Insert", "insert": "Insert", "home": "Home", "end": "End",
    "pageup": "Prior", "page_up": "Prior", "pgup": "Prior",
    "pagedown": "Next", "page_down": "Next", "pgdn": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
    "space": "space", "spacebar": "space", "capslock": "Caps_Lock", "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock", "printscreen": "Print", "print": "Print", "prtsc": "Print",
    "menu": "Menu", "apps": "Menu", "pause": "Pause", "break": "Break",
    "plus": "plus", "minus": "minus",
}

# Characters typed as keys rather than as symbols.
CONTROL_CHARS = {"\n": "Return", "\r": "Return", "\t": "Tab", "\b": "BackSpace",
                 "\x1b": "Escape", "\x7f": "Delete"}


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, int], dict[str, int]]:
    """Every keysym name python-xlib knows: exact and lower-cased (loaded once, lazily)."""
    for group in _GROUPS:
        try:
            XK.load_keysym_group(group)
        except ImportError:
            continue
    exact = {name[3:]: value for name, value in vars(XK).items()
             if name.startswith("XK_") and isinstance(value, int)}
    # python-xlib spells XF86 keysyms "XF86_AudioMute"; X (and xdotool) say "XF86AudioMute".
    exact.update({"XF86" + name[5:]: value for name, value in list(exact.items())
                  if name.startswith("XF86_")})
    lower: dict[str, int] = {}
    for name, value in sorted(exact.items()):
        lower.setdefault(name.lower(), value)
    return exact, lower


def char_to_keysym(char: str) -> int:
    """The keysym that types ``char``: Latin-1 keysyms equal their code point, everything else
    uses the Unicode keysym range 0x1000000 + code point (understood by libX11 and XKB)."""
    if char in CONTROL_CHARS:
        return _tables()[0][CONTROL_CHARS[char]]
    cp = ord(char)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    if cp < 0x20 or 0x7F <= cp < 0xA0 or unicodedata.category(char) == "Cs":
        raise ValueError(f"text: control character U+{cp:04X} cannot be typed")
    return 0x1000000 + cp


def parse_key_name(name: str) -> int:
    """xdotool-style key name -> keysym; ValueError naming the key when unknown."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"key: expected a key name, got {name!r}")
    exact, lower = _tables()
    alias = ALIASES.get(name.lower())
    if alias is not None and alias in exact:
        return exact[alias]
    if name in exact:
        return exact[name]
    if len(name) == 1:
        return char_to_keysym(name)
    if name.lower() in lower:
        return lower[name.lower()]
    if name[:2].lower() == "0x":  # raw keysym number, as xdotool accepts
        try:
            return int(name, 16)
        except ValueError:
            pass
    if name[:2].upper() == "U+":
        try:
            return char_to_keysym(chr(int(name[2:], 16)))
        except (ValueError, OverflowError):
            pass
    raise ValueError(f"key: unknown key name {name!r}")


def keysym_name(keysym: int) -> str:
    exact, _ = _tables()
    for name, value in exact.items():
        if value == keysym:
            return name
    return f"0x{keysym:x}"
