"""/setup/activate_window, /setup/close_window and /setup/open_file: OSWorld's wmctrl matching
(title substring, case-insensitive; strict: the whole title; by_class: WM_CLASS) over desktopd's
window list and window actions."""

from __future__ import annotations

import asyncio
import os
from typing import TypedDict

from aiohttp import web

from desktopd import app_keys
from desktopd.execute import processes
from desktopd.app_keys import backend_service
from desktopd.execute.handlers import environment
from desktopd_contract.windows import WindowInfo
from httpapi.bodies import Typed
from httpapi.errors import ApiError, not_found
from httpapi.fields import Bool, F, Model, Number, Str

from .bodies import body_fields
from .files import expand



class OsworldWindow(TypedDict):
    window_name: str
    strict: bool
    by_class: bool


class OsworldOpenFile(TypedDict):
    path: str
    window_name: str | None
    timeout_seconds: float


WINDOW_BODY = Typed(Model("OsworldWindow", [
    F("window_name", Str(min_length=1, max_length=1000), required=True),
    F("strict", Bool(), default=False, description="The whole title, case-sensitive."),
    F("by_class", Bool(), default=False, description="Match WM_CLASS instead of the title."),
]), OsworldWindow)
OPEN_BODY = Typed(Model("OsworldOpenFile", [
    F("path", Str(min_length=1, max_length=4096), required=True, description="A file (opened with "
      "xdg-open) or a program on PATH."),
    F("window_name", Str(min_length=1, max_length=1000), description="The title to wait for "
      "(default: the file's name with and without extension)."),
    F("timeout_seconds", Number(maximum=1800, exclusive_minimum=0), default=60.0),
]), OsworldOpenFile)
# How often the window list is read while waiting for an opened file's window.
OPEN_POLL_S = 0.25


def matches(window: WindowInfo, name: str, strict: bool, by_class: bool) -> bool:
    candidates = [part or "" for part in window.get("wm_class") or []] if by_class else [window.get("title") or ""]
    if strict:
        return name in candidates
    return any(name.lower() in candidate.lower() for candidate in candidates)


async def _find(request: web.Request, body: OsworldWindow) -> WindowInfo:
    windows = await backend_service(request).call(lambda desk: desk.windows())
    for window in reversed(windows):   # top-most first, as wmctrl -a picks
        if matches(window, body["window_name"], body["strict"], body["by_class"]):
            return window
    raise not_found(f"Window {body['window_name']} not found")


async def _act(request: web.Request, action: str) -> WindowInfo:
    window = await _find(request, await body_fields(request, WINDOW_BODY))
    wid = window["id"]
    await backend_service(request).call(lambda desk: desk.window_action(wid, action))
    return window


async def activate_window(request: web.Request) -> web.Response:
    await _act(request, "focus")
    return web.Response(text="Window activated successfully")


async def close_window(request: web.Request) -> web.Response:
    await _act(request, "close")
    return web.Response(text="Window closed successfully")


async def open_file(request: web.Request) -> web.Response:
    body = await body_fields(request, OPEN_BODY)
    path = expand(body["path"])
    is_file = os.path.exists(path)
    argv = ["xdg-open", path] if is_file else [body["path"]]
    base = os.path.basename(path)
    titles = [body["window_name"]] if body["window_name"] else [base, os.path.splitext(base)[0]]
    try:
        await processes.detach(argv, cwd=None, env=environment(request.app[app_keys.SETTINGS].display, None),
                               log_dir=request.app[app_keys.SETTINGS].app_log_dir)
    except processes.CommandError as exc:
        raise not_found(f"Application/file not found: {body['path']} ({exc.detail})") from None
    xs = backend_service(request)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + body["timeout_seconds"]
    while loop.time() < deadline:
        for window in reversed(await xs.call(lambda desk: desk.windows())):
            if any(matches(window, title, False, False) for title in titles if title):
                await xs.call(lambda desk, wid: desk.window_action(wid, "focus"), window["id"])
                return web.Response(text="File opened and window activated successfully")
        await asyncio.sleep(OPEN_POLL_S)
    raise ApiError(500, "window_not_found",
                   f"Failed to find window for {titles} within {body['timeout_seconds']:g} seconds.")
