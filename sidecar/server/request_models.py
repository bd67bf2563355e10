"""The sidecar's request models, declared once: they validate requests (422 naming the field,
unknown fields refused) and generate its OpenAPI document."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from httpapi.fields import F, Bool, Enum, Int, ListOf, Model, Number, Str

MAX_NODES_LIMIT = 1_000_000
BOUNDS_SPACES = ("document", "viewport", "screen")
TAB_ORDERS = ("front", "strip")
ROLE_LIST = re.compile(r"^\s*[A-Za-z0-9_-]+\s*(,\s*[A-Za-z0-9_-]+\s*)*,?\s*$")


def _absolute_url(value: str) -> str | None:
    if not value.strip():
        return "must not be empty"
    if ":" not in value:
        return f"expected an absolute URL with a scheme, such as https://example.com/, got {value!r}"
    try:
        # What the URL policy and Chromium will parse: an unclosed [IPv6 host, a bad port.
        _ = urlsplit(value.strip()).port
    except ValueError as exc:
        return f"not a valid URL ({exc}): {value!r}"
    return None


def _role_list(value: str) -> str | None:
    return None if ROLE_LIST.match(value) else "expected a comma-separated list of roles, e.g. button,link"


def _not_blank(value: str) -> str | None:
    return None if value.strip() else "must be a target id or a non-empty prefix of one"


URL = Str(min_length=1, max_length=1 << 16, check=_absolute_url, pattern=r"^\S*[A-Za-z][A-Za-z0-9+.-]*:",
          description="Absolute URL. http, https, data, about:blank, and file: below SIDECAR_FILE_ROOTS; "
                      "other schemes are refused with 403. One that does not parse (an unclosed [IPv6 "
                      "host, a port over 65535) is a 422.")
WAIT = Enum(("load", "none"), description="load: answer after the load event; none: after the commit.")
TIMEOUT = Number(minimum=0.5, maximum=300, description="Seconds, 0.5 to 300 (default: the CDP timeout).")

OPEN_TAB_BODY = Model("OpenTab", [
    F("url", URL, default="about:blank"),
    F("background", Bool(), default=False, description="Open without bringing it to the front."),
])
NAVIGATE_BODY = Model("Navigate", [
    F("url", URL, required=True),
    F("wait", WAIT, default="load"),
    F("timeout", TIMEOUT),
])
RELOAD_BODY = Model("Reload", [
    F("wait", WAIT, default="load"),
    F("timeout", TIMEOUT),
])
LAYOUT_QUERY = Model("LayoutQuery", [
    F("tab", Str(min_length=1, check=_not_blank, pattern=r"\S"),
      description="Target id, or a unique prefix of one: only that tab."),
    F("interesting", Bool(), default=False, description="Leave out ignored and generic nodes."),
    F("roles", Str(min_length=1, check=_role_list, pattern=ROLE_LIST.pattern),
      description="Comma-separated roles to keep, case-insensitive (e.g. button,link)."),
    F("max_nodes", Int(minimum=1, maximum=MAX_NODES_LIMIT), description="At most this many nodes per tab."),
    F("fresh", Bool(), default=False, description="A full read of every tab: no cache, no incremental patch."),
    F("bounds", Enum(BOUNDS_SPACES),
      description="The space of each node's bounds (and its borderBox): document (CSS px from the "
                  "document's top-left, the documented contract), viewport (CSS px from the visible "
                  "viewport's top-left, what the reference implementation's DOM.getBoxModel gave) or "
                  "screen (desktop pixels, the node's screen box). Default: the server's "
                  "--bounds-space (env SIDECAR_BOUNDS_SPACE), document unless set."),
    F("order", Enum(TAB_ORDERS),
      description="front: the tab in front first, then the others in tab-strip order (CDP's /json "
                  "order, which the reference listed); strip: tab-strip order. Default: the server's "
                  "--tab-order (env SIDECAR_TAB_ORDER), front unless set."),
    F("inline_text_boxes", Bool(), default=False,
      description="Also report Chromium's InlineTextBox nodes (one per line of text, with their bounds) "
                  "under their StaticText node."),
])
RESET_BODY = Model("Reset", [
    F("urls", ListOf(URL, max_items=32),
      description="Tabs of the new browser, in order (default: the configured start URLs)."),
    F("timeout", Number(minimum=5, maximum=300),
      description="Seconds, 5 to 300, for the new Chromium to start and its tabs to load (default: 60); "
                  "504 reset_timeout when they did not."),
])
PLAYWRIGHT_BODY = Model("Playwright", [
    F("code", Str(min_length=1, max_length=1 << 20, pattern=r"\S"), required=True,
      description="Python: the body of an async function with `page` (the tab), `context` and "
                  "`browser` bound (Playwright's async API); `return` gives `result`. A single "
                  "expression is returned as it is, e.g. `await page.title()`. Locals do not "
                  "persist between calls; the browser does."),
    F("timeout_s", Number(exclusive_minimum=0),
      description="Seconds before the code is stopped: default 60, values above 300 are taken as 300."),
    F("tab", Str(min_length=1, check=_not_blank, pattern=r"\S"),
      description="Target id, or a unique prefix of one, bound as `page` (default: the tab in front)."),
])
