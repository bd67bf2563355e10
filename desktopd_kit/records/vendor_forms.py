"""One of our actions (desktopd's format, screen pixels) written as the vendors would have sent
it: Anthropic's computer tool input, OpenAI's computer_call action and the pyautogui code OSWorld
records. The vendor names and units are those desktopd serves (desktopd_contract/formats/): a
record of a person reads like a record of an agent of either vendor."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import SupportsIndex, SupportsInt

# OpenAI's scroll is in pixels; desktopd's OpenAI endpoint turns this many into one wheel click.
PIXELS_PER_WHEEL_CLICK = 100
ANTHROPIC_CLICKS = {("left", 1): "left_click", ("right", 1): "right_click", ("middle", 1): "middle_click",
                    ("left", 2): "double_click", ("left", 3): "triple_click"}


def vendor_forms(action: Mapping[str, object]) -> dict[str, object]:
    """{"anthropic": ..., "openai": ..., "pyautogui": "..."}: None where a vendor has no such action."""
    kind = action["type"]
    if kind == "click":
        return _click(action)
    if kind == "drag":
        path = _path(action["path"])
        (x0, y0), (x1, y1) = path[0], path[-1]
        button = action.get("button", "left")
        return {"anthropic": {"action": "left_click_drag", "start_coordinate": [x0, y0], "coordinate": [x1, y1]}
                if button == "left" else None,
                "openai": {"type": "drag", "path": [{"x": x, "y": y} for x, y in path]},
                "pyautogui": _held(action, f"pyautogui.moveTo({x0}, {y0}); "
                                           f"pyautogui.dragTo({x1}, {y1}, button={button!r})")}
    if kind == "scroll":
        x, y, dx, dy = (_int(action[k]) for k in ("x", "y", "dx", "dy"))
        direction, amount = (("down" if dy > 0 else "up"), abs(dy)) if dy else (("right" if dx > 0 else "left"), abs(dx))
        code = []
        if dy:
            code.append(f"pyautogui.scroll({-dy}, x={x}, y={y})")   # pyautogui: > 0 scrolls up
        if dx:
            code.append(f"pyautogui.hscroll({dx}, x={x}, y={y})")
        return {"anthropic": {"action": "scroll", "coordinate": [x, y], "scroll_direction": direction,
                              "scroll_amount": amount},
                "openai": {"type": "scroll", "x": x, "y": y, "scroll_x": dx * PIXELS_PER_WHEEL_CLICK,
                           "scroll_y": dy * PIXELS_PER_WHEEL_CLICK},
                "pyautogui": "; ".join(code) or "pass"}
    if kind == "type":
        text = str(action["text"])
        return {"anthropic": {"action": "type", "text": text}, "openai": {"type": "type", "text": text},
                "pyautogui": f"pyautogui.write({text!r})"}
    if kind == "keys":
        names = str(action["keys"]).split("+")
        return {"anthropic": {"action": "key", "text": str(action["keys"])},
                "openai": {"type": "keypress", "keys": [n.upper() if len(n) > 1 else n for n in names]},
                "pyautogui": (f"pyautogui.hotkey({', '.join(repr(_pyautogui_key(n)) for n in names)})" if len(names) > 1
                              else f"pyautogui.press({_pyautogui_key(names[0])!r})")}
    return {"anthropic": None, "openai": None, "pyautogui": None}


def _click(action: Mapping[str, object]) -> dict[str, object]:
    x, y = _int(action["x"]), _int(action["y"])
    button, clicks = str(action.get("button", "left")), _int(action.get("clicks", 1))
    modifiers = _modifiers(action)
    name = ANTHROPIC_CLICKS.get((button, clicks))
    anthropic: dict[str, object] | None = {"action": name, "coordinate": [x, y]} if name else None
    if anthropic is not None and modifiers:
        anthropic["text"] = "+".join(modifiers)
    openai: dict[str, object] = ({"type": "double_click", "x": x, "y": y} if clicks == 2 and button == "left"
                                 else {"type": "click", "button": button, "x": x, "y": y})
    if modifiers:
        openai["keys"] = [m.upper() for m in modifiers]
    return {"anthropic": anthropic, "openai": openai,
            "pyautogui": _held(action, f"pyautogui.click({x}, {y}, clicks={clicks}, button={button!r})")}


def _held(action: Mapping[str, object], code: str) -> str:
    modifiers = _modifiers(action)
    if not modifiers:
        return code
    down = "; ".join(f"pyautogui.keyDown({_pyautogui_key(m)!r})" for m in modifiers)
    up = "; ".join(f"pyautogui.keyUp({_pyautogui_key(m)!r})" for m in reversed(modifiers))
    return f"{down}; {code}; {up}"


def _int(value: object) -> int:
    """int(value) for what int() takes (a JSON number, a numeric string); TypeError for the rest."""
    if isinstance(value, (str, bytes, bytearray, SupportsInt, SupportsIndex)):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def _list(value: object) -> list[object]:
    """list(value) of an iterable; TypeError for the rest."""
    if not isinstance(value, Iterable):
        raise TypeError(f"not a list: {value!r}")
    return list(value)


def _path(value: object) -> list[tuple[int, int]]:
    """A drag's points ([x, y] each) as ints."""
    path = []
    for p in _list(value):
        if not isinstance(p, Sequence):
            raise TypeError(f"not a point: {p!r}")
        path.append((_int(p[0]), _int(p[1])))
    return path


def _modifiers(action: Mapping[str, object]) -> list[str]:
    """The key names held during the action (none when absent)."""
    names: list[str] = []
    for m in _list(action.get("modifiers") or []):
        if not isinstance(m, str):
            raise TypeError(f"not a key name: {m!r}")
        names.append(m)
    return names


PYAUTOGUI_KEYS = {"super": "win", "return": "enter", "escape": "esc", "backspace": "backspace",
                  "prior": "pageup", "next": "pagedown", "iso_left_tab": "tab"}


def _pyautogui_key(name: str) -> str:
    lower = name.lower()
    return PYAUTOGUI_KEYS.get(lower, lower)
