"""Key combos as agents write them ("Enter", "Control+a", "ctrl+shift+T") for both inputs:
xdotool names for desktopd, CDP key events for Input.dispatchKeyEvent."""

from __future__ import annotations

from dataclasses import dataclass

MODIFIERS = {"control": "ctrl", "ctrl": "ctrl", "shift": "shift", "alt": "alt", "option": "alt",
             "meta": "super", "cmd": "super", "command": "super", "super": "super",
             "controlormeta": "ctrl"}
# CDP's modifier bits.
_BITS = {"alt": 1, "ctrl": 2, "super": 4, "shift": 8}
# name -> (xdotool keysym, DOM key, DOM code, Windows virtual key code, text)
_NAMED = {
    "enter": ("Return", "Enter", "Enter", 13, "\r"), "return": ("Return", "Enter", "Enter", 13, "\r"),
    "tab": ("Tab", "Tab", "Tab", 9, ""), "escape": ("Escape", "Escape", "Escape", 27, ""),
    "esc": ("Escape", "Escape", "Escape", 27, ""),
    "backspace": ("BackSpace", "Backspace", "Backspace", 8, ""),
    "delete": ("Delete", "Delete", "Delete", 46, ""), "space": ("space", " ", "Space", 32, " "),
    "arrowup": ("Up", "ArrowUp", "ArrowUp", 38, ""), "up": ("Up", "ArrowUp", "ArrowUp", 38, ""),
    "arrowdown": ("Down", "ArrowDown", "ArrowDown", 40, ""),
    "down": ("Down", "ArrowDown", "ArrowDown", 40, ""),
    "arrowleft": ("Left", "ArrowLeft", "ArrowLeft", 37, ""),
    "left": ("Left", "ArrowLeft", "ArrowLeft", 37, ""),
    "arrowright": ("Right", "ArrowRight", "ArrowRight", 39, ""),
    "right": ("Right", "ArrowRight", "ArrowRight", 39, ""),
    "home": ("Home", "Home", "Home", 36, ""), "end": ("End", "End", "End", 35, ""),
    "pageup": ("Page_Up", "PageUp", "PageUp", 33, ""),
    "pagedown": ("Page_Down", "PageDown", "PageDown", 34, ""),
    "insert": ("Insert", "Insert", "Insert", 45, ""),
    **{f"f{n}": (f"F{n}", f"F{n}", f"F{n}", 111 + n, "") for n in range(1, 13)},
}


# Characters whose xdotool name is not the character itself.
_KEYSYMS = {"=": "equal", "+": "plus", "-": "minus", ",": "comma", ".": "period", "/": "slash",
            ";": "semicolon", "'": "apostrophe", "[": "bracketleft", "]": "bracketright",
            "\\": "backslash", "`": "grave", "*": "asterisk", "#": "numbersign", "!": "exclam",
            "?": "question", ":": "colon", "0": "0"}


class KeyError_(ValueError):
    """A combo that names no key; the route answers 422 naming the field."""


@dataclass(frozen=True)
class Combo:
    modifiers: tuple[str, ...]     # desktopd names: ctrl, shift, alt, super
    keysym: str                    # xdotool name
    key: str                       # DOM key
    code: str
    key_code: int
    text: str

    @property
    def xdotool(self) -> str:
        return "+".join((*self.modifiers, self.keysym))

    @property
    def cdp_modifiers(self) -> int:
        return sum(_BITS[m] for m in self.modifiers)


def parse_combo(text: str) -> Combo:
    """``Control+Shift+T``, ``ctrl+a``, ``Enter``, ``+`` or ``Control++``."""
    parts = text.split("+")
    if text.endswith("++") or text == "+":
        parts = [p for p in text[:-1].split("+") if p] + ["+"]
    parts = [p.strip() for p in parts]
    *mods, key = parts
    modifiers = []
    for mod in mods:
        name = MODIFIERS.get(mod.lower())
        if name is None:
            raise KeyError_(f"{mod!r} is not a modifier (Control, Shift, Alt, Meta)")
        modifiers.append(name)
    if not key:
        raise KeyError_("the combo names no key")
    named = _NAMED.get(key.lower())
    if named is not None:
        keysym, dom_key, code, vk, char = named
        return Combo(tuple(modifiers), keysym, dom_key, code, vk, char)
    if len(key) != 1:
        raise KeyError_(f"{key!r} is not a key: use one character or a name such as Enter, Tab, "
                        "Escape, Backspace, ArrowDown, PageUp, F5")
    if key.isalpha():
        code, vk = f"Key{key.upper()}", ord(key.upper())
    elif key.isdigit():
        code, vk = f"Digit{key}", ord(key)
    else:
        code, vk = {"=": ("Equal", 187), "+": ("Equal", 187), "-": ("Minus", 189),
                    ",": ("Comma", 188), ".": ("Period", 190), "/": ("Slash", 191)}.get(key, ("", 0))
    return Combo(tuple(modifiers), _KEYSYMS.get(key, key), key, code, vk, key)
