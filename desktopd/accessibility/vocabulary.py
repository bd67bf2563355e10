"""AT-SPI's role and state numbers as names (the AtspiRole and AtspiStateType enums of
at-spi2-core 2.46, generated from its GObject introspection data; the wire carries numbers)."""

from __future__ import annotations

ROLE_NAMES: tuple[str, ...] = (
    "invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
    "check box", "check menu item", "color chooser", "column header", "combo box", "date editor",
    "desktop icon", "desktop frame", "dial", "dialog", "directory pane", "drawing area",
    "file chooser", "filler", "focus traversable", "font chooser", "frame", "glass pane",
    "html container", "icon", "image", "internal frame", "label", "layered pane", "list",
    "list item", "menu", "menu bar", "menu item", "option pane", "page tab", "page tab list",
    "panel", "password text", "popup menu", "progress bar", "push button", "radio button",
    "radio menu item", "root pane", "row header", "scroll bar", "scroll pane", "separator",
    "slider", "spin button", "split pane", "status bar", "table", "table cell",
    "table column header", "table row header", "tearoff menu item", "terminal", "text",
    "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown", "viewport", "window",
    "extended", "header", "footer", "paragraph", "ruler", "application", "autocomplete", "editbar",
    "embedded", "entry", "chart", "caption", "document frame", "heading", "page", "section",
    "redundant object", "form", "link", "input method window", "table row", "tree item",
    "document spreadsheet", "document presentation", "document text", "document web",
    "document email", "comment", "list box", "grouping", "image map", "notification", "info bar",
    "level bar", "title bar", "block quote", "audio", "video", "definition", "article", "landmark",
    "log", "marquee", "math", "rating", "timer", "static", "math fraction", "math root",
    "subscript", "superscript", "description list", "description term", "description value",
    "footnote", "content deletion", "content insertion", "mark", "suggestion", "push button menu",
    "last defined",
)

STATE_NAMES: tuple[str, ...] = (
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable", "enabled",
    "expandable", "expanded", "focusable", "focused", "has-tooltip", "horizontal", "iconified",
    "modal", "multi-line", "multiselectable", "opaque", "pressed", "resizable", "selectable",
    "selected", "sensitive", "showing", "single-line", "stale", "transient", "vertical", "visible",
    "manages-descendants", "indeterminate", "required", "truncated", "animated", "invalid-entry",
    "supports-autocompletion", "selectable-text", "is-default", "visited", "checkable", "has-popup",
    "read-only", "last-defined",
)


# Roles an agent acts on or reads even when unnamed (AT-SPI names, and the ARIA names /layout uses).
INTERACTIVE_ROLES = frozenset({
    "push button", "toggle button", "check box", "radio button", "check menu item",
    "radio menu item", "menu item", "menu", "combo box", "entry", "password text", "text",
    "spin button", "slider", "scroll bar", "link", "page tab", "list item", "tree item",
    "table cell", "push button menu", "tearoff menu item", "terminal",
    "button", "checkbox", "radio", "textbox", "searchbox", "combobox", "menuitem",
    "menuitemcheckbox", "menuitemradio", "tab", "option", "switch", "spinbutton",
    "treeitem", "gridcell", "cell", "listitem",
})


def role_name(number: int) -> str:
    return ROLE_NAMES[number] if 0 <= number < len(ROLE_NAMES) else f"role {number}"


def state_names(words: list[int]) -> list[str]:
    """The set bits of AT-SPI's state bitmask (two 32-bit words) as names."""
    names = []
    for word_index, word in enumerate(words[:2]):
        bit = 0
        while word:
            if word & 1:
                number = word_index * 32 + bit
                names.append(STATE_NAMES[number] if number < len(STATE_NAMES) else f"state {number}")
            word >>= 1
            bit += 1
    return names
