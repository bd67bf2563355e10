"""Request models of the agent routes: they validate (422 naming the field) and generate the
sidecar's OpenAPI document, so both say the same."""

from __future__ import annotations

from httpapi.fields import F, AnyOf, Bool, Enum, Int, ListOf, Model, Number, Str, Tagged, tagged_variant

from .key_combos import KeyError_, parse_combo
from .refs import REF_PATTERN, is_ref
from .tree_text import DEFAULT_MAX_CHARS, MAX_MAX_CHARS

MODES = ("visible", "cdp")


def _ref_check(value: str) -> str | None:
    return None if is_ref(value) else "expected a ref from GET /snapshot, such as e12 or f1e3"


def _combo_check(value: str) -> str | None:
    try:
        parse_combo(value)
    except KeyError_ as exc:
        return str(exc)
    return None


REF = Str(min_length=1, max_length=20, check=_ref_check, pattern=REF_PATTERN,
          description="An element's ref from GET /snapshot.")
TAB = Str(min_length=1, max_length=64, pattern=r"\S",
          description="Target id of a tab, or a unique prefix (default: the tab in front).")
TAB_FIELD = F("tab", TAB)
MODE_FIELD = F("mode", Enum(MODES), default="visible",
               description="visible: the real pointer and keyboard through desktopd (XTEST), on the "
                           "element scrolled into view: the operator sees it; cdp: input through "
                           "CDP, also on background tabs and without a desktop.")
SNAPSHOT_FIELD = F("snapshot", Bool(), default=False,
                   description="Answer with a fresh snapshot of the tab too (text).")
TIMEOUT_FIELD = F("timeout", Number(minimum=0.1, maximum=60),
                  description="Seconds to wait for a navigation the act started (default 10), or "
                              "for a wait act's condition (default 5).")
MODIFIER = Enum(("Control", "Shift", "Alt", "Meta", "ctrl", "shift", "alt", "meta"))
_COMMON = [TAB_FIELD, MODE_FIELD, SNAPSHOT_FIELD, TIMEOUT_FIELD]


def _kind(kind: str, fields: list[F], description: str) -> Model:
    return tagged_variant("kind", kind, [*fields, *_COMMON], name=f"Act{kind.title().replace('_', '')}",
                          description=description)


FIELD_VALUE = Model("FillField", [
    F("ref", REF, required=True),
    F("value", AnyOf([Str(max_length=100_000), Bool(), ListOf(Str(max_length=10_000), max_items=100)]),
      required=True, description="Text for a text field; true/false for a checkbox, radio or switch; "
                                 "an option's value or label (or a list) for a select."),
])
ACT_BODY = Tagged("kind", {
    "click": _kind("click", [
        F("ref", REF, required=True),
        F("button", Enum(("left", "right", "middle")), default="left"),
        F("double", Bool(), default=False),
        F("modifiers", ListOf(MODIFIER, max_items=4), default=[]),
    ], "Click the element's centre."),
    "type": _kind("type", [
        F("ref", REF, required=True),
        F("text", Str(max_length=100_000), required=True),
        F("submit", Bool(), default=False, description="Press Enter after."),
        F("slowly", Bool(), default=False, description="One key at a time (key handlers see each)."),
    ], "Replace the field's text with this text."),
    "press": _kind("press", [
        F("key", Str(min_length=1, max_length=64, check=_combo_check), required=True,
          description="A key or combo: Enter, Tab, ArrowDown, Control+a, Shift+Tab."),
        F("ref", REF, description="Focus this element first (default: the focused one)."),
    ], "Press a key combo."),
    "hover": _kind("hover", [F("ref", REF, required=True)], "Move the pointer over the element."),
    "drag": _kind("drag", [F("ref", REF, required=True), F("to_ref", REF, required=True)],
                  "Press on ref, move to to_ref, release."),
    "select": _kind("select", [
        F("ref", REF, required=True),
        F("values", ListOf(Str(max_length=10_000), min_items=1, max_items=100), required=True,
          description="Option values or labels."),
    ], "Choose options of a select."),
    "fill": _kind("fill", [
        F("fields", ListOf(FIELD_VALUE, min_items=1, max_items=100), required=True),
    ], "Fill several fields: text fields, checkboxes, radios, selects."),
    "scroll_into_view": _kind("scroll_into_view", [F("ref", REF, required=True)],
                              "Scroll the element into view."),
    "wait": _kind("wait", [
        F("text", Str(min_length=1, max_length=10_000), description="Until this text is on the page."),
        F("text_gone", Str(min_length=1, max_length=10_000), description="Until this text is not."),
        F("url", Str(min_length=1, max_length=10_000), description="Until the URL contains this."),
        F("load_state", Enum(("load", "domcontentloaded")), description="Until the document reached it."),
        F("time", Number(minimum=0, maximum=30), description="Seconds to wait, alone or before the rest."),
    ], "Wait for a condition (bounded by timeout)."),
    "evaluate": _kind("evaluate", [
        F("function", Str(min_length=1, max_length=100_000), required=True,
          description="A JavaScript function: (element) => ... with ref, () => ... without."),
        F("ref", REF),
    ], "Run a function on the element or the page; its JSON result is the answer's result. "
       "Refused when the sidecar runs with SIDECAR_AGENT_EVALUATE=0."),
    "resize": _kind("resize", [
        F("width", Int(minimum=200, maximum=10_000), required=True),
        F("height", Int(minimum=200, maximum=10_000), required=True),
    ], "Resize the tab's browser window."),
    "close": _kind("close", [], "Close the tab."),
}, description="One act on the page; kind says which.")

SNAPSHOT_QUERY = Model("SnapshotQuery", [
    F("tab", TAB),
    F("format", Enum(("text", "json")), default="text"),
    F("max_chars", Int(minimum=500, maximum=MAX_MAX_CHARS), default=DEFAULT_MAX_CHARS,
      description="Character budget; past it a marker line says how much was left out."),
    F("interactive", Bool(), default=False,
      description="Only elements an agent can act on, and their named ancestors."),
    F("depth", Int(minimum=1, maximum=1000), description="At most this many levels."),
    F("ref", REF, description="Only this element's subtree."),
    F("diff", Bool(), default=False,
      description="Subtrees equal to this client's previous snapshot of the tab print as [unchanged]."),
    F("client", Str(min_length=1, max_length=128),
      description="The client whose previous snapshot diff compares with (or the X-Agent-Client "
                  "header; default: one shared client)."),
])
CONSOLE_QUERY = Model("ConsoleQuery", [
    F("tab", TAB),
    F("level", Enum(("debug", "info", "warning", "error")), default="info",
      description="This level and above."),
    F("limit", Int(minimum=1, maximum=1000), default=200, description="The last this many."),
])
TAB_QUERY = Model("TabQuery", [F("tab", TAB)])
REQUESTS_QUERY = Model("RequestsQuery", [
    F("tab", TAB), F("limit", Int(minimum=1, maximum=1000), default=200),
    F("failed", Bool(), default=False, description="Only failed requests and HTTP errors (>= 400)."),
])
HISTORY_BODY = Model("History", [TAB_FIELD, TIMEOUT_FIELD])
PDF_BODY = Model("Pdf", [
    TAB_FIELD,
    F("landscape", Bool(), default=False),
    F("print_background", Bool(), default=True),
])
SCREENSHOT_QUERY = Model("ElementScreenshotQuery", [
    F("tab", TAB), F("ref", REF, description="The element (default: the visible page)."),
    F("full_page", Bool(), default=False, description="The whole page, not only the viewport."),
])
DIALOG_HOOK_BODY = Model("DialogHook", [
    TAB_FIELD,
    F("accept", Bool(), default=True),
    F("prompt_text", Str(max_length=100_000), description="The answer to a prompt()."),
])
FILE_CHOOSER_HOOK_BODY = Model("FileChooserHook", [
    TAB_FIELD,
    F("paths", ListOf(Str(min_length=1, max_length=4096), max_items=100), required=True,
      description="Absolute paths of files on the sidecar's machine; [] cancels."),
])
