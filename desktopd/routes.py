"""Every route of desktopd, declared once: registered on the app and described by OpenAPI."""

from __future__ import annotations


from aiohttp import web

from desktopd import models
from desktopd.accessibility import handlers as accessibility
from desktopd.accessibility.models import ACCESSIBILITY_ACTION_BODY, ACCESSIBILITY_QUERY
from desktopd import harness_step as step
from desktopd.computer.format_servers import format_routes
from desktopd.demonstration.routes import ROUTES as DEMONSTRATION_ROUTES
from desktopd.recording.routes import ROUTES as RECORDING_ROUTES
from desktopd.reset.routes import ROUTES as RESET_ROUTES
from desktopd.vision import act as vision_act
from desktopd.vision import handlers as vision
from desktopd.vision import models as vision_models
from httpapi.routing import Route, register, with_body, with_query
from desktopd.handlers import (clipboard, compat, execute, health, keyboard, openapi, pointer,
                               screenshot, windows)

POSITION = {"type": "object", "properties": {
    "x": {"type": "integer", "description": "Pointer x after the events, screen pixels."},
    "y": {"type": "integer", "description": "Pointer y after the events, screen pixels."},
    "events": {"type": "integer"}}, "required": ["x", "y"]}
EXECUTE_RESULT = {"type": "object", "properties": {
    "exit_code": {"type": ["integer", "null"], "description": "Negative: killed by that signal."},
    "signal": {"type": ["string", "null"]}, "timed_out": {"type": "boolean"},
    "stdout": {"type": "string"}, "stderr": {"type": "string"},
    "stdout_truncated": {"type": "boolean"}, "stderr_truncated": {"type": "boolean"},
    "stdout_bytes": {"type": "integer"}, "stderr_bytes": {"type": "integer"},
    "duration_s": {"type": "number"}, "pid": {"type": "integer"},
    "detached": {"type": "boolean"}, "log": {"type": ["string", "null"]}}}
RECT = {"type": "object", "properties": {
    "x": {"type": "integer"}, "y": {"type": "integer"}, "width": {"type": "integer"},
    "height": {"type": "integer"}, "space": {"const": "screen"}}}
TREE = {"type": "object", "properties": {
    "screen": {"type": "object", "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}}},
    "coordinate_space": {"const": "screen pixels"},
    "window_manager": {"type": ["object", "null"]},
    "windows": {"type": "array", "description": "Bottom to top.", "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "frame_id": {"type": "integer"}, "title": {"type": "string"},
        "wm_class": {"type": ["array", "null"], "items": {"type": "string"}},
        "pid": {"type": ["integer", "null"]}, "desktop": {"type": ["integer", "null"]},
        "stacking": {"type": "integer"}, "focused": {"type": "boolean"},
        "minimized": {"type": "boolean"}, "maximized": {"type": "boolean"},
        "visible": {"type": "boolean"},
        "window_type": {"type": "string", "description": "EWMH's _NET_WM_WINDOW_TYPE, lower case "
                        "without its prefix: normal, dialog, utility, ... (a transient window "
                        "without one: dialog)."},
        "transient_for": {"type": ["integer", "null"], "description": "WM_TRANSIENT_FOR: the window "
                          "a dialog belongs to."},
        "frame": {**RECT, "description": "With decorations, screen pixels."},
        "client": {**RECT, "description": "The application's own area, screen pixels."}}}}}}
I3_TREE = {"type": "object", "description": "i3/Sway IPC get_tree: root > output > workspace > con "
           "(application windows, in nodes) or floating_con (dialogs, transients, utility windows, "
           "in floating_nodes).",
           "required": ["id", "type", "nodes", "floating_nodes", "rect"], "properties": {
               "type": {"const": "root"}, "nodes": {"type": "array"}, "floating_nodes": {"type": "array"},
               "rect": {"type": "object"}, "name": {"type": ["string", "null"]}}}
HEALTH = {"type": "object", "properties": {
    "status": {"enum": ["ok", "degraded", "starting"],
               "description": "starting: the display answers, but the desktop's window manager "
                              "(DESKTOPD_WINDOW_MANAGER) does not run yet or no window has the keyboard."},
    "version": {"type": "string"},
    "display": {"type": "string"}, "x_connected": {"type": "boolean"},
    "x_state_since": {"type": "number", "description": "Unix time of the last connect/disconnect."},
    "screen": {"type": ["object", "null"]}, "uptime_s": {"type": "number"},
    "x": {"type": "object", "description": "X layer details (extensions, capture backend, errors)."},
    "settle": {"type": "object", "description": "The damage watcher settles rely on: watching, last_error.",
               "properties": {"watching": {"type": "boolean"}, "last_error": {"type": ["string", "null"]}}}}}
CLIPBOARD = {"type": "object", "properties": {"text": {"type": ["string", "null"]},
                                               "empty": {"type": "boolean"}}}
IMAGE_HEADERS = {
    "X-Screen-Width": "Screen width in pixels.", "X-Screen-Height": "Screen height in pixels.",
    "X-Region": "Captured rectangle x,y,width,height in screen pixels.",
    "X-Scale": "Factor applied: screen_x = region_x + image_x / scale.",
    "X-Image-Width": "Width of the returned image.", "X-Image-Height": "Height of the returned image.",
    "X-Raw-Width": "format=raw: pixels per row.", "X-Raw-Height": "format=raw: rows.",
    "X-Raw-Stride": "format=raw: bytes per row (width*4).",
    "X-Raw-Format": "format=raw: BGRX, 4 bytes a pixel (blue, green, red, unused), rows top down.",
}


def _window_routes() -> list[Route]:
    out = []
    for action, model in windows.ACTION_BODIES.items():
        out.append(Route("POST", f"/api/v1/windows/{{id}}/{action}", windows.window_action_handler(action),
                         f"{action.capitalize()} a top-level window", "windows",
                         body=model if model.fields else None, body_optional=not model.fields,
                         not_found=True))
    return out


ACCESSIBILITY_NODE = {"type": "object", "description": "An accessible object or a web node.", "properties": {
    "id": {"type": "string", "description": "atspi:<bus>:<object> or web:<tab>:<node>: the source."},
    "source": {"enum": ["atspi", "web"]}, "role": {"type": "string"}, "name": {"type": "string"},
    "description": {"type": "string"}, "value": {"type": ["string", "null"]},
    "states": {"type": "array", "items": {"type": "string"}},
    "actions": {"type": ["array", "null"], "items": {"type": "string"},
                "description": "AT-SPI action names; null when not read (not showing, unnamed and "
                               "not interactive, or a web node)."},
    "bounds": {"type": ["object", "null"], "description": "Screen pixels; null when not on screen.",
               "properties": {"x": {"type": "number"}, "y": {"type": "number"},
                              "width": {"type": "number"}, "height": {"type": "number"}}},
    "center": {"type": ["object", "null"], "description": "Where /api/v1/tablet taps it.",
               "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
    "window": {"type": ["object", "null"], "description": "Top-levels only: their X window."},
    "placement": {"type": "object", "description": "Top-levels, window-relative extents only (Sway): "
                                                  "source compositor_window with window and offset, "
                                                  "or source null with reason."},
    "bounds_unavailable": {"type": "string", "description": "Why bounds is null for a node that has "
                                                            "extents: its window could not be placed."},
    "pid": {"type": ["integer", "null"], "description": "Applications only."},
    "bus_name": {"type": "string", "description": "Applications only."},
    "merged": {"type": "object", "description": "merge=browser: the tab whose nodes are the children."},
    "children": {"type": "array", "items": {"type": "object", "description": "Nodes of this shape."}}}}
ACCESSIBILITY_TREE = {"type": "object", "properties": {
    "coordinate_space": {"const": "screen pixels"},
    "screen": {"type": "object"},
    "applications": {"type": "array", "items": ACCESSIBILITY_NODE},
    "node_count": {"type": "integer"}, "truncated": {"type": "boolean"},
    "placement": {"type": "object", "description": "How bounds were placed: source atspi_screen (X11: "
                                                   "the applications' screen extents) or "
                                                   "compositor_window (Sway: window-relative extents "
                                                   "plus the window's position)."},
    "truncated_by": {"type": "array", "items": {"enum": ["time_budget", "max_nodes"]}},
    "complete": {"type": "boolean", "description": "False while the desktop starts: see pending."},
    "pending": {"type": "array", "items": {"type": "object", "properties": {
        "reason": {"enum": ["window_not_in_tree", "browser_unavailable"]},
        "window": {"type": "object"}, "detail": {"type": "string"}}},
        "description": "Shown X windows of applications that register on the accessibility bus "
                       "but have no top-level in the tree yet; merge=browser: the browser's pages "
                       "not yet readable."},
    "read_ms": {"type": "number"}, "duration_ms": {"type": "number"},
    "merge": {"type": "object", "description": "merge=browser: status merged, no_browser_document "
                                               "or layout_unavailable (with detail)."}}}

ROUTES: list[Route] = [
    Route("GET", "/health", health.health, "Liveness and X connection state (no token needed)",
          "meta", uses_x=False, public=True,
          success={"application/json": {"schema": HEALTH}},
          description="200 while the X display answers; 503 with the same body while it does not."),
    Route("GET", "/api/v1/openapi.json", openapi.openapi_json, "This document", "meta", uses_x=False),
    Route("GET", "/api/v1/screenshot", with_query(models.SCREENSHOT_QUERY, screenshot.screenshot),
          "Capture the screen or a region", "screen",
          concurrency=16,
          success={"image/png": {"schema": {"type": "string", "format": "binary"}},
                   "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                   "image/webp": {"schema": {"type": "string", "format": "binary"}},
                   "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
          success_headers=IMAGE_HEADERS),
    Route("POST", "/api/v1/tablet", pointer.tablet, "Pointer: tap, move, click, down/up, drag, scroll",
          "input", body=models.POINTER_BODY,
          success={"application/json": {"schema": POSITION}},
          description="Coordinates are screen pixels; off-screen ones are a 422 naming the field."),
    Route("POST", "/api/v1/keyboard", with_body(models.KEYBOARD_BODY, keyboard.keyboard),
          "Keyboard: text, key combos, key events",
          "input"),
    *format_routes(),
    Route("POST", "/api/v1/step", with_body(step.STEP_BODY, step.step),
          "A harness step in one round trip: act, settle, observe", "computer",
          success={"application/json": {"schema": step.RESULT}},
          description=f"Runs at most one act ({', '.join(step.ACTS[:-1])} or {step.ACTS[-1]}), waits for "
                      "the screen to settle (X damage quiet for settle_quiet, at most settle "
                      "seconds) and answers with the screenshot (base64), windows and pointer."),
    *RECORDING_ROUTES,
    *DEMONSTRATION_ROUTES,
    *RESET_ROUTES,
    Route("GET", "/api/v1/tree", with_query(models.TREE_QUERY, windows.tree),
          "Top-level windows in stacking order", "windows",
          success={"application/json": {"schema": {"anyOf": [TREE, I3_TREE]}}},
          description="Geometry fields are screen pixels (see each window's fields). format=i3: the "
                      "i3/Sway get_tree shape instead."),
    Route("GET", "/api/v1/windows/{id}", windows.window, "One top-level window (as in /tree)",
          "windows", not_found=True, success={"application/json": {"schema": TREE["properties"]["windows"]["items"]}}),
    *_window_routes(),
    Route("POST", "/api/v1/execute", with_body(models.EXECUTE_BODY, execute.execute),
          "Run a command, or launch a GUI app (detach)",
          "system", uses_x=False,
          concurrency=16,
          success={"application/json": {"schema": EXECUTE_RESULT}}),
    Route("GET", "/api/v1/clipboard", clipboard.get_clipboard, "Read the CLIPBOARD selection",
          "clipboard", success={"application/json": {"schema": CLIPBOARD}}),
    Route("PUT", "/api/v1/clipboard", clipboard.put_clipboard, "Set the CLIPBOARD selection",
          "clipboard", body=models.CLIPBOARD_BODY.model, text_types=frozenset({"text/plain"}),
          description="JSON {\"text\":...}, or a text/plain UTF-8 body."),
    Route("POST", "/api/v1/tablet_event", with_body(models.COMPAT_TABLET_BODY, compat.tablet_event),
          "Compatibility: the original desktopd's pointer events", "compat", success_status=204, success={}),
    Route("POST", "/api/v1/keyboard_event", with_body(models.COMPAT_KEYBOARD_BODY, compat.keyboard_event),
          "Compatibility: the original desktopd's key events", "compat", success_status=204, success={}),
    Route("GET", "/api/v1/accessibility", with_query(ACCESSIBILITY_QUERY, accessibility.accessibility_tree),
          "The desktop's accessibility (AT-SPI) tree, optionally merged with the browser's /layout",
          "accessibility",
          success={"application/json": {"schema": ACCESSIBILITY_TREE}},
          description="Every application's tree with bounds in screen pixels (the space of "
                      "/api/v1/tablet); 503 while the accessibility bus is down."),
    Route("POST", "/api/v1/accessibility/{id}/do",
          with_body(ACCESSIBILITY_ACTION_BODY, accessibility.accessibility_do),
          "Perform an AT-SPI action (or focus) on one accessible object", "accessibility",
          not_found=True, extra_errors=(502,),
          id_description="A node id from GET /api/v1/accessibility (atspi:...); 404 when it is "
                         "unknown or gone.", id_pattern=r"^\S+$"),
    Route("GET", "/api/v1/vision/text", with_query(vision_models.TEXT_QUERY, vision.vision_text),
          "The text on the screen (or a region, or one window), read from its pixels (OCR)", "vision",
          concurrency=4,   # OCR reads one image at a time: a longer queue only grows latency
          not_found=True,
          success={"application/json": {"schema": vision_models.TEXT_RESULT}},
          description="Lines and words with boxes and centres in screen pixels (the space of "
                      "/api/v1/tablet and /accessibility) and the engine's confidence; for canvas, "
                      "images of text and apps without a tree. The engine is Tesseract's English line "
                      "model run by ONNX Runtime; without it Tesseract reads alone and engine.fallback "
                      "says why. 503 ocr_unavailable when the image has no OCR engine (the desktop "
                      "image: it ships in the Chromium one)."),
    Route("POST", "/api/v1/vision/click", with_body(vision_models.CLICK_BODY, vision.vision_click),
          "Click visible text: find its words on the screen and click their centre", "vision",
          concurrency=4,
          not_found=True, extra_errors=(409,),
          success={"application/json": {"schema": vision_models.CLICK_RESULT}},
          description="Acts on the VISIBLE desktop. 404 text_not_found lists the closest texts, 409 "
                      "ambiguous_text lists every match (with boxes): never a guess."),
    Route("POST", "/api/v1/vision/fill", with_body(vision_models.FILL_BODY, vision.vision_fill),
          "Type into the field beside a visible label", "vision",
          concurrency=4,
          not_found=True, extra_errors=(409,),
          success={"application/json": {"schema": vision_models.FILL_RESULT}},
          description="Acts on the VISIBLE desktop: finds the label's words, the field's edge to "
                      "their right (else below), clicks inside it, selects all (clear) and types. "
                      "404/409 as /vision/click."),
    Route("POST", "/api/v1/vision/act", with_body(vision_act.ACT_BODY, vision_act.vision_act),
          "Let a configured vision model do a task on the VISIBLE desktop", "vision",
          concurrency=4,
          success={"application/json": {"schema": vision_act.ACT_RESULT}},
          description="Screenshot, the model's plan (Anthropic computer tool, OpenAI "
                      "computer_use_preview or a chat grounding model, per DESKTOPD_VISION_MODELS), "
                      "its actions through /computer/*'s executors, until done or a budget "
                      "(max_steps, budget.tokens, budget.seconds) ends it; answers the trace and "
                      "the final screenshot. 503 no_vision_model without a configured model. "
                      "Closing the request cancels the loop."),
]


def setup_routes(app: web.Application, routes: list[Route] = ROUTES) -> None:
    register(app, routes)
