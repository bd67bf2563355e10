"""HTTP routes of the browser's lasting state: named profiles, storage state and HAR capture.

Every one goes through the app's guard and token like the other routes; GET /storage-state and
GET /har answer cookies (secrets), so a page of another site can read them no more than it can
post a reset (the guard refuses its Origin / Sec-Fetch-Site, and a DNS-rebinding page's Host)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from aiohttp import web

from httpapi.app_keys import app_key
from httpapi.errors import invalid
from httpapi.bodies import Typed
from httpapi.fields import F, Bool, Enum, Int, ListOf, Model, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel, TypedResponse
from httpapi.profile_names import PROFILE_NAME_PATTERN, profile_name_problem
from httpapi.routing import Route, with_body, with_query

from . import app_keys as keys
from .tab_lookup import cdp_timeout as _timeout
from .tab_lookup import live_session as _session
from ..cdp.targets import TargetTracker
from ..errors import ChromiumUnavailable, TabNotFound
from ..state.profiles import ProfileSummary
from ..state.har import HarCapture, HarOptions, HarStateError
from ..state.storage_state import (SAME_SITE, Cookie, StorageState, candidate_origins, load_storage_state, origin_of,
                            read_storage_state, remember_origins, remembered_origins)


@dataclass
class HarSlot:
    """The app's one HAR capture (None when none runs)."""

    capture: HarCapture | None = None


HAR_SLOT = app_key("sidecar.har", HarSlot)
MAX_BODY_LIMIT = 64 << 20
# Browsers cap a cookie's life at 400 days anyway; beyond year 9999 no date format holds it.
MAX_EXPIRES = 253402300799


def _origin(value: str) -> str | None:
    return None if origin_of(value) == value.rstrip("/") else \
        "expected an http(s) origin such as https://example.org (scheme, host, port; no path)"


def _origins(value: str) -> str | None:
    for item in value.split(","):
        if item.strip() and _origin(item.strip()):
            return f"expected comma-separated http(s) origins such as https://example.org, got {item.strip()!r}"
    return None


# Playwright's storageState: cookies and origins' localStorage. Values are never echoed in errors.
COOKIE_NAME = r"^[^\x00-\x1f\x7f;=]*$"
COOKIE_VALUE = r"^[^\x00-\x1f\x7f;]*$"
COOKIE_DOMAIN = r"^\.?([A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?$"
COOKIE_PATH = r"^/[^\x00-\x1f\x7f;]*$"


def _matches(pattern: str, what: str) -> Callable[[str], str | None]:
    compiled = re.compile(pattern)
    return lambda value: None if compiled.match(value) else f"not a valid {what}"


def _cookie_rules(cookie: Mapping[str, object]) -> tuple[str, str] | None:
    if cookie["sameSite"] == "None" and not cookie["secure"]:
        return "sameSite", "None needs secure: true (browsers refuse it otherwise)"
    if cookie["partitionKey"] is not None and not cookie["secure"]:
        return "partitionKey", "a partitioned cookie needs secure: true"
    return None


COOKIE = Model("Cookie", [
    F("name", Str(max_length=4096, pattern=COOKIE_NAME, check=_matches(COOKIE_NAME, "cookie name")),
      required=True),
    F("value", Str(max_length=4096, pattern=COOKIE_VALUE, check=_matches(COOKIE_VALUE, "cookie value")),
      required=True),
    F("domain", Str(min_length=1, max_length=253, pattern=COOKIE_DOMAIN,
                    check=_matches(COOKIE_DOMAIN, "host name (ASCII; a leading dot for subdomains)")),
      required=True),
    F("path", Str(min_length=1, max_length=4096, pattern=COOKIE_PATH, check=_matches(COOKIE_PATH, "path")),
      default="/"),
    F("expires", Number(minimum=-1, maximum=MAX_EXPIRES), default=-1,
      description="Unix seconds; -1: a session cookie."),
    F("httpOnly", Bool(), default=False),
    F("secure", Bool(), default=False),
    F("sameSite", Enum(SAME_SITE), default="Lax", description="None needs secure: true."),
    F("partitionKey", Str(min_length=1, max_length=1024, check=_origin),
      description="The top-level site of a partitioned (CHIPS) cookie, e.g. https://example.org; "
                  "needs secure: true."),
], check=_cookie_rules)
ORIGIN_STATE = Model("OriginStorage", [
    F("origin", Str(min_length=1, max_length=300, check=_origin), required=True),
    F("localStorage", ListOf(Model("StorageItem", [F("name", Str(max_length=4096), required=True),
                                                   F("value", Str(max_length=1 << 16), required=True)])),
      default=[]),
])
STORAGE_STATE = Model("StorageState", [
    F("cookies", ListOf(COOKIE), default=[]),
    F("origins", ListOf(ORIGIN_STATE), default=[]),
], description="Playwright's storageState JSON (context.storage_state(), storage_state= of new_context).")


class StorageStateQuery(TypedDict):
    origins: str | None


STORAGE_QUERY = Typed(Model("StorageStateQuery", [
    F("origins", Str(min_length=1, max_length=4000, check=_origins),
      description="Comma-separated origins whose localStorage to read besides those found (the "
                  "tabs' frames and histories, and origins this profile had storage at)."),
]), StorageStateQuery)


class HarStart(TypedDict):
    tab: str | None
    content: bool
    max_body_bytes: int


HAR_START = Typed(Model("HarStart", [
    F("tab", Str(min_length=1, max_length=64), description="Only this tab (id or unique prefix); "
      "default every tab, also those opened later."),
    F("content", Bool(), default=False, description="Keep response bodies (content.text)."),
    F("max_body_bytes", Int(minimum=0, maximum=MAX_BODY_LIMIT), default=1 << 20,
      description="A body larger than this is left out (with a comment saying its size)."),
]), HarStart)


class HarStop(TypedDict):
    tab: str | None


HAR_STOP = Typed(Model("HarStop", [
    F("tab", Str(min_length=1, max_length=64),
      description="Stop only this tab's capture and answer its entries (default: all)."),
]), HarStop)


class HarQuery(TypedDict):
    since: int


HAR_QUERY = Typed(Model("HarQuery", [
    F("since", Int(minimum=0), default=0, description="Only entries whose _seq is at least this."),
]), HarQuery)
class ProfilesAnswer(TypedDict):
    profiles: list[ProfileSummary]
    current: str | None
    directory: NotRequired[str | None]


PROFILES_RESULT = TypedResponse(ResponseModel("Profiles", [
    F("profiles", ListOf(ResponseModel("Profile", [
        F("name", Str(), required=True), F("in_use", Bool(), required=True),
        F("bytes", Int()), F("modified", Number())])), required=True),
    F("current", Nullable(Str()), required=True,
      description="The running browser's profile; null: the throwaway one."),
    F("directory", Nullable(Str())),
]), ProfilesAnswer)
HAR_RESULT = ResponseModel("Har", [
    F("log", Opaque("object"), required=True, description="HAR 1.2: version, creator, pages, "
      "entries. Entries add _requestId, _seq, _tab, _resourceType; a failed request has "
      "response.status 0 and _error."),
    F("next", Int(), description="GET /har: the since= of the next read."),
])


def _tab_id(tracker: TargetTracker, tab: str) -> str:
    page = tracker.find_page(tab)
    if page is None:
        raise TabNotFound(tab, field="tab")
    return page.target_id


# -- profiles -----------------------------------------------------------------------------------

async def list_profiles(request: web.Request) -> web.Response:
    supervisor = request.app[keys.SUPERVISOR]
    store = supervisor.profiles
    current = supervisor.profile.name if supervisor.profile is not None else None
    return PROFILES_RESULT.response({"profiles": [store.describe(name) for name in store.names()],
                                     "current": current, "directory": store.root})


async def delete_profile(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    problem = profile_name_problem(name)
    if problem:
        raise invalid("name", problem)
    request.app[keys.SUPERVISOR].profiles.delete(name)
    return web.json_response({"deleted": name})


# -- storage state ------------------------------------------------------------------------------

def _profile_dir(request: web.Request) -> str:
    profile = request.app[keys.SUPERVISOR].profile
    if profile is None:
        raise ChromiumUnavailable("Chromium is starting")
    return profile.path


async def get_storage_state(request: web.Request, params: StorageStateQuery) -> web.Response:
    conn, tracker = _session(request)
    named = [item.strip().rstrip("/") for item in (params["origins"] or "").split(",") if item.strip()]
    profile_dir = _profile_dir(request)
    origins = await candidate_origins(tracker.pages(), profile_dir, named, _timeout(request))
    state = await read_storage_state(conn, tracker, origins, _timeout(request))
    remember_origins(profile_dir, [entry["origin"] for entry in state["origins"]])
    # Cookies: never stored by a cache on the way.
    return web.json_response(state, headers={"Cache-Control": "no-store"})


async def post_storage_state(request: web.Request, body: dict[str, Any]) -> web.Response:
    state: StorageState = {"cookies": [cast(Cookie, {k: v for k, v in c.items() if v is not None})
                                       for c in body["cookies"]],
                           "origins": [{"origin": o["origin"].rstrip("/"), "localStorage": o["localStorage"]}
                                       for o in body["origins"]]}
    conn, tracker = _session(request)
    loaded = await load_storage_state(conn, tracker, state, _timeout(request))
    profile_dir = _profile_dir(request)
    remember_origins(profile_dir, remembered_origins(profile_dir) + [o["origin"] for o in state["origins"]])
    return web.json_response({"loaded": loaded})


# -- HAR ----------------------------------------------------------------------------------------

def _capture(request: web.Request) -> HarCapture:
    capture = request.app[HAR_SLOT].capture
    if capture is None:
        raise HarStateError("no HAR capture is running; POST /har/start first")
    return capture


def _ended_note(request: web.Request, capture: HarCapture) -> str | None:
    live = request.app[keys.SUPERVISOR].live
    if live is None or live.conn is not capture.conn:
        return "the browser restarted or was reset during the capture: later requests are missing"
    return None


async def har_start(request: web.Request, body: HarStart) -> web.Response:
    conn, tracker = _session(request)
    slot = request.app[HAR_SLOT]
    tab = _tab_id(tracker, body["tab"]) if body["tab"] else None
    options = HarOptions(content=body["content"], max_body_bytes=body["max_body_bytes"])
    capture = slot.capture
    if capture is not None and capture.conn is not conn:
        capture.stop()                 # the browser it listened to is gone
        capture = slot.capture = None
    if capture is None:
        capture = HarCapture(conn, tracker, options, all_tabs=tab is None, tabs={tab} if tab else set())
        capture.start()
        slot.capture = capture
    elif tab is None:
        raise HarStateError("a HAR capture is already running; POST /har/stop first")
    else:
        capture.add_tab(tab)
    return web.json_response({"capturing": "all" if capture.all_tabs else sorted(capture.tabs),
                              "content": capture.options.content,
                              "max_body_bytes": capture.options.max_body_bytes,
                              "next": capture.next_seq})


async def har_stop(request: web.Request, body: HarStop) -> web.Response:
    slot = request.app[HAR_SLOT]
    capture = _capture(request)
    note = _ended_note(request, capture)
    if body["tab"]:
        _conn, tracker = _session(request)
        tab = _tab_id(tracker, body["tab"])
        if not capture.captures(tab):
            raise HarStateError(f"tab {tab} is not being captured", "tab")
        await capture.settle()
        har = capture.log(capture.drop_tab(tab), comment=note)
        if capture.empty_scope:
            capture.stop()
            slot.capture = None
        return web.json_response(har, headers={"Cache-Control": "no-store"})
    await capture.settle()
    capture.stop()
    slot.capture = None
    return web.json_response(capture.log(comment=note), headers={"Cache-Control": "no-store"})


async def har_read(request: web.Request, params: HarQuery) -> web.Response:
    capture = _capture(request)
    body = capture.log(since=params["since"], comment=_ended_note(request, capture))
    body["next"] = capture.next_seq
    return web.json_response(body, headers={"Cache-Control": "no-store"})


PROFILE_NAME = "A profile's name: 1-64 letters, digits, '_', '.', '-', starting with a letter or digit."
STATE_ROUTES = [
    Route("GET", "/profiles", list_profiles, "The named browser profiles", "state", returns=PROFILES_RESULT,
          description="Profiles are directories under SIDECAR_PROFILES_DIR; POST /reset "
                      "{\"profile\": NAME} starts Chromium on one (creating it)."),
    Route("DELETE", "/profiles/{name}", delete_profile, "Delete a named profile", "state",
          not_found=True, id_description=PROFILE_NAME, id_pattern=PROFILE_NAME_PATTERN, extra_errors=(409,),
          uses_x=False, description="409 profile_in_use while a browser runs on it (this one or "
                                    "another sidecar's sharing the directory)."),
    Route("GET", "/storage-state", with_query(STORAGE_QUERY, get_storage_state),
          "Cookies and localStorage (Playwright's storageState)",
          "state", returns=STORAGE_STATE, extra_errors=(502, 504),
          description="Every cookie of the browser, and the localStorage of each origin found (the "
                      "tabs' frames and histories, origins this profile had storage at before, and "
                      "?origins=) that has any, read in a hidden page that never touches the network. "
                      "The answer holds secrets: keep any file of it private (0600)."),
    Route("POST", "/storage-state", with_body(STORAGE_STATE, post_storage_state),
          "Load cookies and localStorage into the browser",
          "state", extra_errors=(413, 502, 504),
          description="Playwright's storageState JSON: cookies are added (replacing those of the same "
                      "name, domain and path), each origin's items set. Answers counts, never values. "
                      "413 for a body over 1 MiB."),
    Route("POST", "/har/start", with_body(HAR_START, har_start, optional=True),
          "Start capturing the network as HAR", "har",
          not_found=True, extra_errors=(409,),
          description="Every tab (default) or one more tab. 409 when a capture of every tab already "
                      "runs, or the tab is captured already."),
    Route("POST", "/har/stop", with_body(HAR_STOP, har_stop, optional=True),
          "Stop the capture and answer it as HAR 1.2", "har",
          not_found=True, extra_errors=(409,), returns=HAR_RESULT,
          description="With tab: that tab's entries, the others keep being captured. 409 when no "
                      "capture runs. Headers hold cookies: keep the HAR private."),
    Route("GET", "/har", with_query(HAR_QUERY, har_read), "The running capture so far, as HAR 1.2", "har",
          extra_errors=(409,), returns=HAR_RESULT, uses_x=False),
]
