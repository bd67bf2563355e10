"""Cookies and localStorage in Playwright's ``storageState`` format, read from and loaded into the
running browser over CDP.

    {"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}],
     "origins": [{"origin": "https://example.org", "localStorage": [{"name", "value"}]}]}

Cookies come from Storage.getCookies (the whole browser), localStorage from a hidden scratch page
at each origin (scratch_page.py). Which origins: every frame of every tab, every entry of the
tabs' histories, the origins this profile had storage at before (remembered in a 0600 file in the
profile) and those the caller names. Values are secrets: nothing here logs or echoes one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Literal, TypedDict, get_args
from urllib.parse import urlsplit

from ..cdp.connection import INVALID_PARAMS, CDPConnection, CDPError
from ..cdp.targets import PageTarget, TargetTracker
from ..cdp.protocol.cdp_commands import StorageGetCookiesParams, StorageSetCookiesParams
from ..cdp.protocol.cdp_types import NetworkCookie, NetworkCookieParam
from .scratch_page import ScratchFailed, scratch_page

ORIGINS_FILE = "desktopd-storage-origins.json"
SameSite = Literal["Strict", "Lax", "None"]
SAME_SITE: tuple[SameSite, ...] = get_args(SameSite)
# Playwright's value for a cookie without an expiry (a session cookie).
SESSION_EXPIRES = -1
READ_LOCAL_STORAGE = "Array.from({length: localStorage.length}, (_, i) => localStorage.key(i))" \
                     ".map(name => ({name, value: localStorage.getItem(name)}))"


class Cookie(TypedDict, total=False):
    name: str
    value: str
    domain: str
    path: str
    expires: float
    httpOnly: bool
    secure: bool
    sameSite: SameSite
    partitionKey: str


class StorageItem(TypedDict):
    name: str
    value: str


class OriginState(TypedDict):
    origin: str
    localStorage: list[StorageItem]


class StorageState(TypedDict):
    cookies: list[Cookie]
    origins: list[OriginState]


def origin_of(url: str) -> str | None:
    """scheme://host[:port] of an http(s) URL, else None (localStorage of other schemes is not
    part of Playwright's format)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def cookie_from_cdp(cookie: NetworkCookie) -> Cookie:
    """A CDP Network.Cookie in Playwright's form (its field names and order; sameSite Lax when
    Chromium reports none, as Playwright does)."""
    out: Cookie = {"name": cookie["name"], "value": cookie["value"], "domain": cookie["domain"],
                   "path": cookie["path"],
                   "expires": SESSION_EXPIRES if cookie.get("session") else cookie.get("expires", SESSION_EXPIRES),
                   "httpOnly": bool(cookie.get("httpOnly")), "secure": bool(cookie.get("secure")),
                   "sameSite": cookie.get("sameSite") or "Lax"}
    partition = cookie.get("partitionKey")
    if isinstance(partition, dict) and partition.get("topLevelSite"):
        out["partitionKey"] = partition["topLevelSite"]
    return out


def cookie_to_cdp(cookie: Cookie) -> NetworkCookieParam:
    """Playwright's cookie as a CDP Network.CookieParam."""
    out: NetworkCookieParam = {"name": cookie["name"], "value": cookie["value"], "domain": cookie["domain"],
                 "path": cookie.get("path") or "/", "httpOnly": bool(cookie.get("httpOnly")),
                 "secure": bool(cookie.get("secure"))}
    expires = cookie.get("expires")
    if expires is not None and expires >= 0:
        out["expires"] = expires
    if cookie.get("sameSite"):
        out["sameSite"] = cookie["sameSite"]
    if cookie.get("partitionKey"):
        out["partitionKey"] = {"topLevelSite": cookie["partitionKey"], "hasCrossSiteAncestor": False}
    return out


def remembered_origins(profile_dir: str) -> list[str]:
    try:
        with open(os.path.join(profile_dir, ORIGINS_FILE), encoding="utf-8") as file:
            found = json.load(file)
    except (OSError, ValueError):
        return []
    return [origin for origin in found if isinstance(origin, str)] if isinstance(found, list) else []


def remember_origins(profile_dir: str, origins: Iterable[str]) -> None:
    """The origins with storage, for the next read (only this user may read the file)."""
    path = os.path.join(profile_dir, ORIGINS_FILE)
    temporary = path + ".tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(sorted(set(origins)), file)
    os.replace(temporary, path)


async def _frame_origins(page: PageTarget, timeout: float) -> list[str]:
    """The origins of the tab's frames and of its history's entries."""
    urls: list[str] = [page.url, *(child.url for child in page.children.values())]
    try:
        tree = await page.send("Page.getFrameTree", timeout=timeout)
        stack = [tree.get("frameTree", {})]
        while stack:
            node = stack.pop()
            urls.append(node.get("frame", {}).get("url", ""))
            stack.extend(node.get("childFrames", []))
        history = await page.send("Page.getNavigationHistory", timeout=timeout)
        urls.extend(entry.get("url", "") for entry in history.get("entries", []))
    except CDPError:
        pass                      # a tab that closed or hangs: its listed URLs still count
    return [origin for origin in map(origin_of, urls) if origin]


async def candidate_origins(pages: Sequence[PageTarget], profile_dir: str, named: Iterable[str],
                            timeout: float) -> list[str]:
    found: dict[str, None] = dict.fromkeys(named)
    found.update(dict.fromkeys(remembered_origins(profile_dir)))
    for page in pages:
        found.update(dict.fromkeys(await _frame_origins(page, timeout)))
    return list(found)


def _set_cookies_params(cookies: list[NetworkCookieParam], context_id: str | None) -> StorageSetCookiesParams:
    """Storage.setCookies' ``params`` in the browser context ``context_id`` (None: the default one)."""
    params: StorageSetCookiesParams = {"cookies": cookies}
    if context_id is not None:
        params["browserContextId"] = context_id
    return params


async def read_storage_state(conn: CDPConnection, tracker: TargetTracker, origins: Sequence[str],
                             timeout: float) -> StorageState:
    """Every cookie, and the localStorage of each of ``origins`` that has any, in the episode's
    browser context."""
    context_id = tracker.browser_context_id
    query: StorageGetCookiesParams = {} if context_id is None else {"browserContextId": context_id}
    cookies = (await conn.send("Storage.getCookies", query, timeout=timeout)).get("cookies", [])
    states: list[OriginState] = []
    if origins:
        async with scratch_page(conn, tracker, timeout) as page:
            for origin in origins:
                try:
                    items = await page.evaluate_at(origin, READ_LOCAL_STORAGE)
                except ScratchFailed:
                    continue      # an origin Chromium will not open (an unsafe port) has no storage
                if isinstance(items, list) and items:
                    states.append({"origin": origin, "localStorage": [
                        {"name": str(item["name"]), "value": str(item["value"])} for item in items]})
    return {"cookies": [cookie_from_cdp(cookie) for cookie in cookies], "origins": states}


class StateRefused(ValueError):
    """Chromium refused a part of a storage state; ``field`` names it (cookies[i], origins[i]).
    What came before it is loaded."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field}: {why}")
        self.field = field


async def _set_cookies(conn: CDPConnection, cookies: Sequence[Cookie], timeout: float,
                       context_id: str | None) -> None:
    """All at once; when Chromium refuses the batch, one by one to name the cookie at fault."""
    try:
        await conn.send("Storage.setCookies", _set_cookies_params([cookie_to_cdp(c) for c in cookies], context_id),
                        timeout=timeout)
        return
    except CDPError as exc:
        if exc.code != INVALID_PARAMS:
            raise
    for index, cookie in enumerate(cookies):
        try:
            await conn.send("Storage.setCookies", _set_cookies_params([cookie_to_cdp(cookie)], context_id),
                            timeout=timeout)
        except CDPError as exc:
            if exc.code != INVALID_PARAMS:
                raise
            raise StateRefused(f"cookies[{index}]", "Chromium refused this cookie (its domain, path, expiry "
                               "or attributes do not form a cookie it accepts)") from None


async def load_storage_state(conn: CDPConnection, tracker: TargetTracker, state: StorageState,
                             timeout: float) -> dict[str, int]:
    """Adds the cookies (replacing those of the same name, domain and path) and sets each
    origin's localStorage items (others of the origin stay), in the episode's browser context.
    Counts of what was loaded."""
    context_id = tracker.browser_context_id
    if state["cookies"]:
        await _set_cookies(conn, state["cookies"], timeout, context_id)
    items = 0
    if state["origins"]:
        async with scratch_page(conn, tracker, timeout) as page:
            for index, origin_state in enumerate(state["origins"]):
                pairs = [[item["name"], item["value"]] for item in origin_state["localStorage"]]
                try:
                    await page.evaluate_at(origin_state["origin"],
                                           f"{json.dumps(pairs)}.forEach(([k, v]) => localStorage.setItem(k, v))")
                except ScratchFailed as failed:
                    raise StateRefused(f"origins[{index}]", str(failed)) from None
                items += len(pairs)
    return {"cookies": len(state["cookies"]), "origins": len(state["origins"]), "local_storage_items": items}
