"""The sidecar's request models, declared once: they validate requests (422 naming the field,
unknown fields refused) and generate its OpenAPI document."""

from __future__ import annotations

from typing import Literal, TypedDict
from urllib.parse import urlsplit

from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, ListOf, Model, Number, Str

from httpapi.profile_names import PROFILE_NAME_PATTERN, profile_name_problem
from .layout.output.options import LAYOUT_QUERY, not_blank

__all__ = ["LAYOUT_QUERY", "NAVIGATE_BODY", "OPEN_TAB_BODY", "PLAYWRIGHT_BODY", "RELOAD_BODY", "RESET_BODY"]


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





URL = Str(min_length=1, max_length=1 << 16, check=_absolute_url, pattern=r"^\S*[A-Za-z][A-Za-z0-9+.-]*:",
          description="Absolute URL. http, https, data, about:blank, and file: below SIDECAR_FILE_ROOTS; "
                      "other schemes are refused with 403. One that does not parse (an unclosed [IPv6 "
                      "host, a port over 65535) is a 422.")
WAIT = Enum(("load", "none"), description="load: answer after the load event; none: after the commit.")
TIMEOUT = Number(minimum=0.5, maximum=300, description="Seconds, 0.5 to 300 (default: the CDP timeout).")

Wait = Literal["load", "none"]


class OpenTabBody(TypedDict):
    url: str
    background: bool


class NavigateBody(TypedDict):
    url: str
    wait: Wait
    timeout: float | None


class ReloadBody(TypedDict):
    wait: Wait
    timeout: float | None


# How a fresh-profile reset isolates episodes (sidecar/browser/episode_context.py).
ISOLATION = Enum(("context", "process"), description=(
    "context: the running Chromium opens the tabs in a new browser context (its own "
    "in-memory cookies, storage, cache, service workers, history, permissions) in a new window "
    "and drops the previous episode's; no launch. process: a new Chromium on a fresh on-disk "
    "profile (what tools reading the profile's files need). A named profile is always a new "
    "Chromium. Default: the sidecar's --reset-isolation (context; process with OSWorld's API on)."))


class ResetBody(TypedDict):
    urls: list[str] | None
    timeout: float | None
    profile: str | None
    isolation: Literal["context", "process"] | None


class PlaywrightBody(TypedDict):
    code: str
    timeout_s: float | None
    tab: str | None


OPEN_TAB_BODY = Typed(Model("OpenTab", [
    F("url", URL, default="about:blank"),
    F("background", Bool(), default=False, description="Open without bringing it to the front."),
]), OpenTabBody)
NAVIGATE_BODY = Typed(Model("Navigate", [
    F("url", URL, required=True),
    F("wait", WAIT, default="load"),
    F("timeout", TIMEOUT),
]), NavigateBody)
RELOAD_BODY = Typed(Model("Reload", [
    F("wait", WAIT, default="load"),
    F("timeout", TIMEOUT),
]), ReloadBody)
RESET_BODY = Typed(Model("Reset", [
    F("urls", ListOf(URL, max_items=32),
      description="Tabs of the new browser, in order (default: the configured start URLs)."),
    F("timeout", Number(minimum=5, maximum=300),
      description="Seconds, 5 to 300, for the new Chromium to start and its tabs to load (default: 60); "
                  "504 reset_timeout when they did not."),
    F("profile", Str(min_length=1, max_length=64, check=profile_name_problem, pattern=PROFILE_NAME_PATTERN),
      description="Start Chromium on this named profile (cookies, storage, history, extensions as "
                  "its last browser left them; created when new) under SIDECAR_PROFILES_DIR. "
                  "Default: a fresh throwaway profile. 409 profile_in_use when another browser "
                  "runs on it."),
    F("isolation", ISOLATION),
]), ResetBody)
PLAYWRIGHT_BODY = Typed(Model("Playwright", [
    F("code", Str(min_length=1, max_length=1 << 20, pattern=r"\S"), required=True,
      description="Python: the body of an async function with `page` (the tab), `context` and "
                  "`browser` bound (Playwright's async API); `return` gives `result`. A single "
                  "expression is returned as it is, e.g. `await page.title()`. Locals do not "
                  "persist between calls; the browser does."),
    F("timeout_s", Number(exclusive_minimum=0),
      description="Seconds before the code is stopped: default 60, values above 300 are taken as 300."),
    F("tab", Str(min_length=1, check=not_blank, pattern=r"\S"),
      description="Target id, or a unique prefix of one, bound as `page` (default: the tab in front)."),
]), PlaywrightBody)
