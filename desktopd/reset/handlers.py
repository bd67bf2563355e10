"""POST /api/v1/reset: the desktop back to a known state for the next episode (desktopd/reset/episode.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Literal, NotRequired, TypedDict

from aiohttp import web

from desktopd import app_keys
from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, Int, ListOf, Model, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from desktopd.input.models import coord
from desktopd.osworld.chrome_after_reset import settle_chrome
from desktopd.reset.episode import ClosedWindows, SidecarClient, Timer, close_windows, focus_browser
from httpapi.profile_names import PROFILE_NAME_PATTERN, profile_name_problem
from httpapi.errors import invalid
from httpapi.json_types import JSONObject

from desktopd.app_keys import backend_service
from desktopd.input.pointer_events import check_on_screen

# Closing is one X job (each window gets its WM's settle time); many stubborn windows stay bounded.
CLOSE_TIMEOUT_S = 120.0


class ResetReport(TypedDict):
    """POST /api/v1/reset's answer, but for its timings."""
    windows: ClosedWindows | None
    clipboard_cleared: bool
    browser: JSONObject | None       # the sidecar's reset answer
    chrome: JSONObject | None        # google-chrome's after-reset settle (desktopd/osworld)
    focused: int | None
    pointer: NotRequired[list[int]]


class ResetBody(TypedDict):
    urls: list[str] | None
    close_windows: bool
    keep: list[str]
    clear_clipboard: bool
    pointer: list[int] | None
    browser: bool | None
    profile: str | None
    isolation: Literal["context", "process"] | None


RESET_BODY = Typed(Model("Reset", [
    F("urls", ListOf(Str(min_length=1, max_length=1 << 16), max_items=32),
      description="The browser's tabs afterwards (the sidecar restarts Chromium on a fresh profile); "
                  "default: its configured start pages. Needs DESKTOPD_SIDECAR_URL."),
    F("close_windows", Bool(), default=True,
      description="Close every top-level window but the desktop's own and the browser's."),
    F("keep", ListOf(Str(min_length=1, max_length=200), max_items=64), default=[],
      description="More WM_CLASS names (instance or class) whose windows stay open."),
    F("clear_clipboard", Bool(), default=True, description="Empty CLIPBOARD and PRIMARY."),
    F("pointer", ListOf(coord(), min_items=2, max_items=2),
      description="Where the pointer goes, screen pixels (default: the screen's centre)."),
    F("browser", Bool(), description="Reset the browser through the sidecar (default: when "
                                     "DESKTOPD_SIDECAR_URL is set)."),
    F("profile", Str(min_length=1, max_length=64, check=profile_name_problem, pattern=PROFILE_NAME_PATTERN),
      description="The browser starts on this named profile (cookies, storage, history kept "
                  "across resets and restarts; the sidecar's SIDECAR_PROFILES_DIR) instead of a "
                  "fresh one. 409 profile_in_use when another browser runs on it."),
    F("isolation", Enum(("context", "process")),
      description="How a fresh browser is made (the sidecar's POST /reset): context (its default) "
                  "opens the tabs in a new browser context of the running Chromium, in a new "
                  "window, and drops the previous episode's context (no launch); process starts a "
                  "new Chromium on a fresh on-disk profile."),
]), ResetBody)
RESULT = ResponseModel("ResetResult", [
    F("windows", Nullable(Opaque("object")), description="closed, killed, kept: window ids."),
    F("clipboard_cleared", Bool()), F("pointer", Opaque("array")),
    F("browser", Nullable(Opaque("object")),
      description="The sidecar's answer: its tabs, isolation (context or process: how the fresh "
                  "browser was made) and timings (seconds per part: context, window, "
                  "close_previous, load; or stop, launch, load)."),
    F("chrome", Nullable(Opaque("object")),
      description="With DESKTOPD_OSWORLD=1 in the Chromium image: the profile "
                  "~/.config/google-chrome now links to, the browser's CDP port and pid, and the "
                  "task forwards that answer CDP (docs/osworld.md)."),
    F("focused", Nullable(Int()), description="The browser window given the keyboard once the "
      "browser was reset (its id, as in /api/v1/tree); null without a browser."),
    F("timings", Opaque("object"), description="Seconds per part (release_input, windows, "
      "clipboard, pointer, browser, chrome, focus)."),
    F("duration_s", Number()),
])


def _sidecar(request: web.Request, wanted: bool | None, urls: list[str] | None,
             profile: str | None, isolation: str | None) -> SidecarClient | None:
    settings = request.app[app_keys.SETTINGS]
    configured = settings.sidecar_configured
    if wanted is True and not configured:
        raise invalid("browser", "no sidecar is configured (set DESKTOPD_SIDECAR_URL)")
    for name, given in (("urls", urls), ("profile", profile), ("isolation", isolation)):
        if given is not None and not configured:
            raise invalid(name, "no sidecar is configured to start the browser (set DESKTOPD_SIDECAR_URL)")
        if given is not None and wanted is False:
            raise invalid(name, "browser=false leaves the browser alone")
    if wanted is False:
        return None
    return SidecarClient(settings.sidecar_url, settings.sidecar_token) if configured else None


async def reset(request: web.Request, body: ResetBody) -> web.Response:
    sidecar = _sidecar(request, body["browser"], body["urls"], body["profile"], body["isolation"])
    xs = backend_service(request)
    screen = await xs.screen_size()
    home = tuple(body["pointer"]) if body["pointer"] else (screen[0] // 2, screen[1] // 2)
    check_on_screen([{"x": home[0], "y": home[1], "path": None}], ["pointer"], screen)
    timer = Timer()
    out: ResetReport = {"windows": None, "clipboard_cleared": False, "browser": None, "chrome": None,
                        "focused": None}

    async def reset_browser(sidecar: SidecarClient) -> None:
        since = time.monotonic()
        out["browser"] = await sidecar.reset(body["urls"], profile=body["profile"],
                                             isolation=body["isolation"])
        timer.lap("browser", since)
        since = time.monotonic()
        out["chrome"] = await settle_chrome(request.app[app_keys.SETTINGS], out["browser"])
        if out["chrome"] is not None:
            timer.lap("chrome", since)

    # The browser's reset (the longest part) runs while the desktop is cleaned: they touch
    # nothing of each other's (the browser's windows are kept by close_windows).
    browser = asyncio.ensure_future(reset_browser(sidecar)) if sidecar is not None else None
    try:
        since = time.monotonic()
        await xs.call(lambda desk: desk.release_all_input())
        timer.lap("release_input", since)
        if body["close_windows"]:
            since = time.monotonic()
            keep = frozenset(name.lower() for name in body["keep"])
            out["windows"] = await xs.call(close_windows, keep, timeout=CLOSE_TIMEOUT_S)
            timer.lap("windows", since)
        if body["clear_clipboard"]:
            since = time.monotonic()
            await xs.call(lambda desk: desk.clipboard_clear())
            out["clipboard_cleared"] = True
            timer.lap("clipboard", since)
        since = time.monotonic()
        await xs.call(lambda desk: desk.pointer_move(*home))
        out["pointer"] = list(home)
        timer.lap("pointer", since)
    except BaseException:
        if browser is not None:
            browser.cancel()
        raise
    if browser is not None:
        await browser
        # After the desktop's windows are closed: closing one may move the focus.
        since = time.monotonic()
        out["focused"] = await xs.call(focus_browser, (out["browser"] or {}).get("pid"))
        timer.lap("focus", since)
    return web.json_response({**out, "timings": timer.parts, "duration_s": timer.total()})
