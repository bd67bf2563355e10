"""The desktop user's files as OSWorld reads and writes them: /file, /setup/upload,
/list_directory, /desktop_path, /wallpaper and /setup/change_wallpaper (XFCE's backdrop)."""

from __future__ import annotations

import asyncio
import os
import shutil
from typing import TypedDict

from aiohttp import web
from aiohttp.web_request import FileField

from desktopd import app_keys
from desktopd.execute import processes
from desktopd.execute.handlers import environment
from desktopd.execute.processes import RunResult
from httpapi.bodies import Typed
from httpapi.errors import ApiError, invalid, not_found
from httpapi.fields import F, Model, Str
from httpapi.responses import ResponseModel, TypedResponse

from .bodies import body_fields, form_fields

PATH = Str(min_length=1, max_length=4096)


class OsworldFile(TypedDict):
    file_path: str


class OsworldPath(TypedDict):
    path: str


FILE_BODY = Typed(Model("OsworldFile", [F("file_path", PATH, required=True, description="~ and $VARS expand.")]),
                  OsworldFile)
LIST_BODY = Typed(Model("OsworldListDirectory", [F("path", PATH, required=True)]), OsworldPath)
WALLPAPER_BODY = Typed(Model("OsworldWallpaper", [F("path", PATH, required=True, description="An image file.")]),
                       OsworldPath)
UPLOAD_FORM = {"type": "object", "required": ["file_path", "file_data"], "properties": {
    "file_path": {"type": "string", "description": "Where to write it (~ and $VARS expand; "
                                                   "missing directories are made)."},
    "file_data": {"type": "string", "format": "binary"}}}


class DesktopPath(TypedDict):
    desktop_path: str


DESKTOP_PATH = TypedResponse(ResponseModel("OsworldDesktopPath", [F("desktop_path", Str())]), DesktopPath)
# xfconf's property of a monitor's workspace image (xfdesktop names monitors by output).
BACKDROP_SUFFIX = "/last-image"
XFCONF_TIMEOUT_S = 10.0


def expand(path: str) -> str:
    return os.path.expandvars(os.path.expanduser(path))


async def get_file(request: web.Request) -> web.StreamResponse:
    path = expand((await body_fields(request, FILE_BODY))["file_path"])
    if not os.path.isfile(path):
        raise not_found(f"File not found: {path}")
    return web.FileResponse(path, headers={
        "Content-Type": "application/octet-stream",
        "Content-Disposition": f'attachment; filename="{os.path.basename(path)}"'})


def _write(part: FileField, path: str) -> int:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as out:
        shutil.copyfileobj(part.file, out)
    return os.path.getsize(path)


async def upload(request: web.Request) -> web.Response:
    fields = await form_fields(request)
    path, part = fields.get("file_path"), fields.get("file_data")
    if not isinstance(path, str) or not path:
        raise invalid("file_path", "is required (a text field)")
    if not isinstance(part, FileField):
        raise invalid("file_data", "is required (a file part)")
    unknown = set(fields) - {"file_path", "file_data"}
    if unknown:
        raise invalid(min(unknown), "unknown field (known: file_path, file_data)")
    try:
        size = await asyncio.get_running_loop().run_in_executor(None, _write, part, expand(path))
    except OSError as exc:
        raise ApiError(500, "upload_failed", f"cannot write {path}: {exc.strerror or exc}") from None
    return web.Response(text=f"File Uploaded: {size} bytes")


class Entry(TypedDict, total=False):
    """/list_directory's tree: a directory with its children, a file, or why it could not be read."""
    type: str            # "directory" or "file"
    name: str
    children: list[Entry]
    error: str


def directory_tree(directory: str) -> Entry:
    tree: Entry = {"type": "directory", "name": os.path.basename(directory), "children": []}
    try:
        for entry in sorted(os.listdir(directory)):
            full = os.path.join(directory, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                tree["children"].append(directory_tree(full))
            else:
                tree["children"].append({"type": "file", "name": entry})
    except OSError as exc:
        return {"error": str(exc)}
    return tree


async def list_directory(request: web.Request) -> web.Response:
    path = (await body_fields(request, LIST_BODY))["path"]
    if not os.path.isdir(path):
        raise invalid("path", f"not a directory: {path!r}")
    tree = await asyncio.get_running_loop().run_in_executor(None, directory_tree, path)
    return web.json_response({"directory_tree": tree})


async def desktop_path(request: web.Request) -> web.Response:
    path = os.path.join(os.path.expanduser("~"), "Desktop")
    if not os.path.isdir(path):
        raise not_found(f"the desktop directory {path} does not exist")
    return DESKTOP_PATH.response({"desktop_path": path})


async def _xfconf(request: web.Request, *args: str) -> RunResult:
    try:
        return await processes.run(["xfconf-query", "-c", "xfce4-desktop", *args], cwd=None,
                                   env=environment(request.app[app_keys.SETTINGS].display, None),
                                   stdin=None, timeout=XFCONF_TIMEOUT_S, max_output=1 << 20)
    except processes.CommandError as exc:
        raise ApiError(502, "application_error", f"xfconf-query: {exc.detail}") from None


async def _backdrop_properties(request: web.Request) -> list[str]:
    listed = await _xfconf(request, "-l")
    return [line.strip() for line in listed["stdout"].splitlines() if line.strip().endswith(BACKDROP_SUFFIX)]


async def wallpaper(request: web.Request) -> web.StreamResponse:
    for prop in await _backdrop_properties(request):
        path = (await _xfconf(request, "-p", prop))["stdout"].strip()
        if path and os.path.isfile(path):
            return web.FileResponse(path, headers={"Content-Type": "image/png"})
    raise not_found("Wallpaper file not found")


async def change_wallpaper(request: web.Request) -> web.Response:
    path = expand((await body_fields(request, WALLPAPER_BODY))["path"])
    if not os.path.isfile(path):
        raise not_found(f"File not found: {path}")
    properties = await _backdrop_properties(request)
    if not properties:
        raise ApiError(502, "application_error", "xfdesktop has no backdrop property to set "
                                                 "(is the XFCE desktop running?)")
    for prop in properties:
        done = await _xfconf(request, "-p", prop, "-s", path)
        if done["exit_code"] != 0:
            raise ApiError(502, "application_error", f"xfconf-query failed: {done['stderr'].strip()}")
    return web.Response(text="Wallpaper changed successfully")
