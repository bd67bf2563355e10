"""Every route of the OSWorld API, declared once: registered, guarded (which take form bodies)
and described in its OpenAPI document (GET /openapi.json on the OSWorld port)."""

from __future__ import annotations

import json

from aiohttp import web

from desktopd.meta.openapi import ERROR_TEXT, build_openapi
from httpapi.fields import Int, ListOf
from httpapi.json_types import JSONObject
from httpapi.routing import Route, register

from . import commands, files, recording, screen, windows
from .bodies import FORM_TYPES

PNG = {"image/png": {"schema": {"type": "string", "format": "binary"}}}
BINARY = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
TEXT = {"text/plain": {"schema": {"type": "string"}}}


OPENAPI_KEY = "desktopd.osworld.openapi"
ERROR_TEXTS = {**ERROR_TEXT,
               400: "Malformed body, or (recording) none running / one already running",
               404: "No such file, directory or window",
               415: "A body of another media type than the route takes (web pages' forms are "
                    "refused by their Origin / Sec-Fetch-Site)"}


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(text=request.app[OPENAPI_KEY], content_type="application/json")


def _exec_routes() -> list[Route]:
    return [Route("POST", path, commands.execute, summary, "osworld", body=commands.EXECUTE_BODY.model,
                  uses_x=False, returns=commands.EXECUTE_RESULT,
                  description="Waits for the command (at most 120 s); output is its stdout, error "
                              "its stderr.")
            for path, summary in (("/execute", "Run a command (the agent's pyautogui code)"),
                                  ("/setup/execute", "Run a setup command"))]


ROUTES: list[Route] = [
    Route("GET", "/openapi.json", openapi_json, "This document", "meta",
          uses_x=False),
    Route("GET", "/screenshot", screen.screenshot, "The screen with the pointer, PNG", "osworld",
          success=PNG),
    Route("POST", "/screen_size", screen.screen_size, "The screen's size", "osworld",
          returns=screen.SCREEN_SIZE),
    Route("GET", "/cursor_position", screen.cursor_position, "The pointer, [x, y] screen pixels",
          "osworld", returns=ListOf(Int())),
    Route("POST", "/window_size", screen.window_size, "The client size of a window by WM_CLASS",
          "osworld", body=screen.WINDOW_SIZE_BODY.model, not_found=True),
    Route("GET", "/platform", screen.platform, "The platform's name (Linux)", "osworld",
          uses_x=False, success=TEXT),
    Route("GET", "/accessibility", screen.accessibility, "The AT-SPI tree as OSWorld's XML",
          "osworld", returns=screen.ACCESSIBILITY,
          description="AT is one XML document: desktop-frame > application > ..., attributes in "
                      "OSWorld's st/cp/attr/act/val namespaces. While the desktop starts the tree "
                      "is read again (at most 10 s) until it is complete; complete false with "
                      "pending (as in /api/v1/accessibility) says what it still lacks."),
    Route("GET", "/terminal", screen.terminal, "The focused terminal's text, or null", "osworld",
          returns=screen.TERMINAL),
    *_exec_routes(),
    Route("POST", "/setup/launch", commands.launch, "Start an application (detached)", "osworld",
          body=commands.EXECUTE_BODY.model, uses_x=False, success=TEXT),
    Route("POST", "/run_python", commands.run_python, "Run a Python 3 program (30 s)", "osworld",
          body=commands.PYTHON_BODY.model, uses_x=False, returns=commands.PYTHON_RESULT),
    Route("POST", "/run_bash_script", commands.run_bash_script, "Run a bash script", "osworld",
          body=commands.BASH_BODY.model, uses_x=False, returns=commands.EXECUTE_RESULT,
          description="output is stdout and stderr merged; returncode -1 after the timeout."),
    Route("POST", "/file", files.get_file, "Download a file of the desktop user", "osworld",
          body=files.FILE_BODY.model, uses_x=False, not_found=True, success=BINARY),
    Route("POST", "/setup/upload", files.upload, "Write a file (multipart: file_path, file_data)",
          "osworld", uses_x=False, success=TEXT, extra_errors=(415, 422)),
    Route("POST", "/list_directory", files.list_directory, "A directory's tree", "osworld",
          body=files.LIST_BODY.model, uses_x=False),
    Route("POST", "/desktop_path", files.desktop_path, "The user's Desktop directory", "osworld",
          uses_x=False, not_found=True,
          returns=files.DESKTOP_PATH),
    Route("POST", "/wallpaper", files.wallpaper, "The desktop's wallpaper image", "osworld",
          uses_x=False, not_found=True, success=PNG, extra_errors=(502,)),
    Route("POST", "/setup/change_wallpaper", files.change_wallpaper, "Set the desktop's wallpaper",
          "osworld", body=files.WALLPAPER_BODY.model, uses_x=False, not_found=True, success=TEXT,
          extra_errors=(502,)),
    Route("POST", "/setup/activate_window", windows.activate_window, "Focus a window by title or class",
          "osworld", body=windows.WINDOW_BODY.model, not_found=True, success=TEXT),
    Route("POST", "/setup/close_window", windows.close_window, "Close a window by title or class",
          "osworld", body=windows.WINDOW_BODY.model, not_found=True, success=TEXT),
    Route("POST", "/setup/open_file", windows.open_file, "Open a file or program and wait for its window",
          "osworld", body=windows.OPEN_BODY.model, not_found=True, success=TEXT),
    Route("POST", "/start_recording", recording.start_recording, "Start recording the screen",
          "osworld", extra_errors=(400,)),
    Route("POST", "/end_recording", recording.end_recording, "Stop recording; the MP4", "osworld",
          extra_errors=(400,), success={"video/mp4": {"schema": {"type": "string", "format": "binary"}}}),
]

# Routes whose body may also be a form (OSWorld's client posts /file and /window_size as forms):
# the guard accepts these media types there and nowhere else.
FORM_BODY_ROUTES = frozenset({("POST", route.path) for route in ROUTES
                              if route.method == "POST" and route.body is not None}
                             | {("POST", "/setup/upload")})
DESCRIPTION = ("OSWorld's VM-server API (desktop_env/server/main.py) over desktopd: no token, so "
               "served only on loopback or with DESKTOPD_INSECURE=1; browser-sent requests are "
               "refused. Bodies: JSON, or a form where a route lists one. Every GET route also "
               "answers HEAD (its status and headers, no body), as OSWorld's Flask server does.")
STARTING_TEXT = "The desktop is starting (Retry-After: 1): the browser's profile is being set up"
ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
UPLOAD_FORM_CONTENT = {"multipart/form-data": {"schema": files.UPLOAD_FORM}}


def osworld_openapi() -> JSONObject:
    doc = build_openapi(ROUTES, title="desktopd OSWorld API", description=DESCRIPTION, texts=ERROR_TEXTS)
    doc["security"] = []
    for route in ROUTES:
        op = doc["paths"][route.path][route.method.lower()]
        if route.body is not None:
            schema = op["requestBody"]["content"]["application/json"]["schema"]
            op["requestBody"]["content"].update({media: {"schema": schema} for media in sorted(FORM_TYPES)})
        elif route.path == "/setup/upload":
            op["requestBody"] = {"required": True, "content": UPLOAD_FORM_CONTENT}
        op["responses"].pop("401", None)
        if route.path != "/openapi.json":   # the desktop's start: app.starting_middleware
            starting = op["responses"].setdefault("503", {"description": "", "content": ERROR_CONTENT})
            starting["description"] = "; ".join(filter(None, (starting["description"], STARTING_TEXT)))
    return doc


def setup_osworld_routes(app: web.Application) -> None:
    app[OPENAPI_KEY] = json.dumps(osworld_openapi())
    register(app, ROUTES, head=True)
