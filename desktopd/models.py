"""Request models of the desktopd API, declared once: handlers validate with them and
/api/v1/openapi.json is generated from them."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, AnyOf, Bool, Enum, Int, ListOf, MapOf, Model, Number, Str
from desktopd_contract.limits import COORD_LIMIT



def coord(description: str = "") -> Int:
    """A screen-pixel coordinate; fractional values (from scaled screenshots) are rounded."""
    return Int(-COORD_LIMIT, COORD_LIMIT, description=description, round_floats=True)

BUTTONS = ("left", "middle", "right")


def _region_problem(value: str) -> str | None:
    parts = value.split(",")
    if len(parts) != 4:
        return "expected x,y,width,height"
    try:
        x, y, w, h = (int(p) for p in parts)
    except ValueError:
        return "expected four integers x,y,width,height"
    if x < 0 or y < 0 or w <= 0 or h <= 0:
        return "x and y must be >= 0, width and height > 0"
    return None


region_problem = _region_problem  # for other request models that take a region


def parse_region(value: str) -> tuple[int, int, int, int]:
    x, y, w, h = (int(p) for p in value.split(","))
    return x, y, w, h


def _screenshot_check(q: dict[str, Any]) -> tuple[str, str] | None:
    if q["scale"] is not None and (q["max_width"] is not None or q["max_height"] is not None):
        return "scale", "give either scale or max_width/max_height, not both"
    if q["quality"] is not None and q["format"] not in ("jpeg", "webp"):
        return "quality", "only applies to format=jpeg or webp"
    return None


SCREENSHOT_QUERY = Model("ScreenshotQuery", [
    F("format", Enum(("png", "jpeg", "webp", "raw")), default="png",
      description="Image format. raw: uncompressed BGRX rows, see the X-Raw-* headers."),
    F("quality", Int(1, 100), description="JPEG/WebP quality (default 80)."),
    F("scale", Number(maximum=1.0, exclusive_minimum=0.0),
      description="Downscale factor in (0, 1]; X-Scale echoes the factor applied."),
    F("max_width", Int(1, 16384), description="Fit the image into this width (keeps aspect)."),
    F("max_height", Int(1, 16384), description="Fit the image into this height (keeps aspect)."),
    F("region", Str(min_length=1, check=_region_problem, pattern=r"^\d{1,5},\d{1,5},[1-9]\d{0,4},[1-9]\d{0,4}$"),
      description="Screen-pixel rectangle x,y,width,height; must lie inside the screen."),
    F("cursor", Bool(), default=False, description="Draw the real pointer image (XFixes)."),
], check=_screenshot_check)

POINTER_ACTIONS = ("tap", "move", "click", "double_click", "down", "up", "drag", "scroll")

POINT = AnyOf([
    ListOf(coord(), min_items=2, max_items=2),
    Model("Point", [F("x", coord(), required=True), F("y", coord(), required=True)]),
], description="A screen-pixel point, [x, y] or {\"x\":..,\"y\":..}.")


def _pointer_check(e: dict[str, Any]) -> tuple[str, str] | None:
    action = e["action"]
    if (e["x"] is None) != (e["y"] is None):
        return ("y" if e["y"] is None else "x"), "x and y go together"
    if action in ("tap", "move") and e["x"] is None:
        return "x", f"is required for action {action}"
    if action == "drag" and e["path"] is None and e["x"] is None:
        return "path", "drag needs a path (or x,y to drag from the current position)"
    if action != "drag" and e["path"] is not None:
        return "path", "only applies to action drag"
    if action == "scroll" and not (e["dx"] or e["dy"]):
        return "dy", "scroll needs a non-zero dx or dy"
    if action != "scroll" and (e["dx"] or e["dy"]):
        return ("dx" if e["dx"] else "dy"), "only applies to action scroll"
    return None


POINTER_EVENT = Model("PointerEvent", [
    F("action", Enum(POINTER_ACTIONS), default="tap",
      description="tap = move + left click (what tablet harnesses send)."),
    F("x", coord(), description="Screen pixels (rounded); must be on screen."),
    F("y", coord(), description="Screen pixels (rounded); must be on screen."),
    F("button", AnyOf([Enum(BUTTONS), Int(1, 9)]), default="left",
      description="left/middle/right or an X button number 1..9."),
    F("clicks", Int(1, 3), default=1, description="Click count for click (double_click means 2)."),
    F("path", ListOf(POINT, min_items=1, max_items=2000),
      description="drag: points to move through, button held (screen pixels)."),
    F("duration_ms", Int(0, 60000), default=200,
      description="drag: total time along the path; other requests keep running meanwhile."),
    F("dx", Int(-200, 200), default=0, description="scroll: clicks right (>0) / left (<0)."),
    F("dy", Int(-200, 200), default=0, description="scroll: clicks down (>0) / up (<0)."),
    F("modifiers", ListOf(Str(min_length=1, max_length=64), max_items=8), default=[],
      description="Key names held during the action, e.g. [\"ctrl\"] (xdotool names)."),
], check=_pointer_check)

POINTER_BATCH = Model("PointerBatch", [
    F("events", ListOf(POINTER_EVENT, min_items=1, max_items=500), required=True),
])

POINTER_BODY = AnyOf([POINTER_EVENT, POINTER_BATCH],
                     description="One pointer event, or {\"events\": [...]} run in order.")


def _keyboard_check(k: dict[str, Any]) -> tuple[str, str] | None:
    given = [name for name in ("text", "keys", "events") if k[name] is not None]
    if len(given) != 1:
        return (given[1] if len(given) > 1 else "text"), "give exactly one of text, keys, events"
    if k["action"] != "press" and k["keys"] is None:
        return "action", "down/up apply to keys"
    return None


KEY_EVENT = Model("KeyEvent", [
    F("keysym", AnyOf([Str(min_length=1, max_length=64), Int(0, 0x1FFFFFFF)]), required=True,
      description="A character, an X keysym / xdotool key name, or a keysym number."),
    F("state", Enum(("down", "up")), required=True),
])

KEYBOARD_BODY = Model("KeyboardRequest", [
    F("text", Str(max_length=100_000), description="Typed exactly, any Unicode."),
    F("keys", AnyOf([Str(min_length=1, max_length=1000),
                     ListOf(Str(min_length=1, max_length=200), min_items=1, max_items=200)]),
      description="xdotool-style combos: \"ctrl+shift+t\", several separated by spaces or as a list."),
    F("action", Enum(("press", "down", "up")), default="press",
      description="keys: press (down in order, up in reverse), or down / up only (holds)."),
    F("events", ListOf(KEY_EVENT, min_items=1, max_items=1000)),
    F("delay_ms", Number(0, 5000), default=0, description="Pause after each key or character."),
], check=_keyboard_check)

WINDOW_MOVE_BODY = Model("WindowMove", [
    F("x", Int(-COORD_LIMIT, COORD_LIMIT), required=True, description="Frame left, screen pixels."),
    F("y", Int(-COORD_LIMIT, COORD_LIMIT), required=True, description="Frame top, screen pixels."),
])
WINDOW_RESIZE_BODY = Model("WindowResize", [
    F("width", Int(1, COORD_LIMIT), required=True, description="Client width in pixels."),
    F("height", Int(1, COORD_LIMIT), required=True, description="Client height in pixels."),
])
EMPTY_BODY = Model("Empty", [])

MAX_TIMEOUT = 600.0
DEFAULT_OUTPUT_CAP = 1 << 20


def _execute_check(e: dict[str, Any]) -> tuple[str, str] | None:
    if e["shell"] and isinstance(e["command"], list):
        return "shell", "shell=true needs command as a string"
    if e["detach"] and e["stdin"] is not None:
        return "stdin", "does not apply to detach"
    return None


class ExecuteBody(TypedDict):
    command: list[str] | str
    shell: bool | None
    cwd: str | None
    env: dict[str, str] | None
    stdin: str | None
    timeout: float
    max_output: int
    detach: bool


EXECUTE_BODY = Typed(Model("ExecuteRequest", [
    F("command", AnyOf([ListOf(Str(min_length=1), min_items=1, max_items=4096),
                        Str(min_length=1, max_length=100_000)]), required=True,
      description="argv list (no shell), or a string run by /bin/sh -c."),
    F("shell", Bool(), description="For a string: false splits it like a shell instead (shlex)."),
    F("cwd", Str(min_length=1), description="Working directory (must exist)."),
    F("env", MapOf(Str(max_length=100_000), max_items=1000),
      description="Variables added to desktopd's environment (DISPLAY is the desktop's)."),
    F("stdin", Str(max_length=10 << 20), description="Text written to the process's stdin."),
    F("timeout", Number(maximum=MAX_TIMEOUT, exclusive_minimum=0), default=30.0,
      description="Seconds; the whole process group is killed when it expires."),
    F("max_output", Int(0, 64 << 20), default=DEFAULT_OUTPUT_CAP,
      description="Bytes kept per stream; the rest is drained and *_truncated is true."),
    F("detach", Bool(), default=False,
      description="Launch in the desktop session (new session, DISPLAY set) and return its pid."),
], check=_execute_check), ExecuteBody)

class ClipboardBody(TypedDict):
    text: str


CLIPBOARD_BODY = Typed(Model("ClipboardText", [
    F("text", Str(max_length=10 << 20), required=True, description="UTF-8 text for CLIPBOARD."),
]), ClipboardBody)

def _xy_together(e: dict[str, Any]) -> tuple[str, str] | None:
    if (e["x"] is None) != (e["y"] is None):
        return ("y" if e["y"] is None else "x"), "x and y go together"
    return None


TREE_FORMATS = ("desktopd", "i3")
class TreeQuery(TypedDict):
    format: Literal["desktopd", "i3"] | None


TREE_QUERY = Typed(Model("TreeQuery", [
    F("format", Enum(TREE_FORMATS), description="desktopd (default unless DESKTOPD_TREE_FORMAT says "
      "otherwise) or i3: the get_tree shape of i3/Sway IPC (root, output, workspace; application "
      "windows as tiled con in nodes, dialogs/transients/utility windows as floating_con in "
      "floating_nodes; window_properties.class/instance/title/transient_for, app_id null on X11, pid)."),
]), TreeQuery)

COMPAT_TABLET_EVENT = Model("CompatTabletEvent", [
    F("type", Enum(("click", "tap", "double_click", "move", "down", "up", "scroll")), required=True),
    F("x", coord("Screen pixels.")),
    F("y", coord("Screen pixels.")),
    F("button", AnyOf([Enum(BUTTONS), Int(1, 9)]), default="left"),
    F("dx", Int(-200, 200), default=0),
    F("dy", Int(-200, 200), default=0),
], check=_xy_together)
# The original's harnesses send whole texts as key events (a 600-character text is 1,200 events):
# batches are bounded by the body size (16 MiB) and run in chunks, not by a small event count.
COMPAT_MAX_EVENTS = 200_000
COMPAT_TABLET_BODY = Model("CompatTabletRequest", [
    F("events", ListOf(COMPAT_TABLET_EVENT, min_items=1, max_items=COMPAT_MAX_EVENTS), required=True),
])
COMPAT_KEYBOARD_BODY = Model("CompatKeyboardRequest", [
    F("events", ListOf(KEY_EVENT, min_items=1, max_items=COMPAT_MAX_EVENTS), required=True),
])
