"""Every desktopd and sidecar endpoint as a typed method, written once for both clients.

Each method only describes its call (calls.Call) and how to decode the answer; the sync client
(Desktop) runs it with requests, the async one (AsyncDesktop) with aiohttp and returns an
awaitable of the same result. Coordinates are screen pixels throughout."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from .calls import JSON, Call, Reply, body, json_reply, member_reply, no_content, path_segment, query, saved_file
from .download import Saved
from .endpoint import endpoint
from .screenshot import Screenshot
from .sidecar_api import SidecarApi
from .vision_api import VisionApi

Point = Sequence[int] | Mapping[str, int]
Button = Literal["left", "middle", "right"] | int
ImageFormat = Literal["png", "jpeg", "webp", "raw"]
WINDOW_ACTIONS = ("focus", "close", "move", "resize", "minimize", "maximize", "restore")


def _tablet(event: Mapping[str, JSON] | None = None,
            events: Sequence[Mapping[str, JSON]] | None = None) -> Call[dict]:
    return Call("desktopd", "POST", "/api/v1/tablet", json_reply,
                json=dict(event or {}) if events is None else {"events": list(events)})


def _window_action(window_id: int | str, action: str, **fields: int) -> Call[dict]:
    if action not in WINDOW_ACTIONS:
        from .errors import DesktopError
        raise DesktopError(None, "invalid_argument", f"action must be one of {WINDOW_ACTIONS}")
    return Call("desktopd", "POST", f"/api/v1/windows/{path_segment(window_id)}/{action}",
                json_reply, json=fields or None)


def computer_use_call(format: str, action_body: Mapping[str, JSON], **params: JSON) -> Call[dict]:
    """The call of POST /api/v1/computer/<format>; it may settle before its screenshot."""
    return Call("desktopd", "POST", f"/api/v1/computer/{path_segment(format)}", json_reply,
                params=query(**params), json=dict(action_body), extra_timeout=120.0)


class DesktopApi(VisionApi, SidecarApi):
    """The endpoints (desktopd's here, the vision mode's and the sidecar's in their own modules),
    each a description (endpoint.Endpoint) the subclasses run through their ``_call``: Desktop
    synchronously, AsyncDesktop as a coroutine."""

    # -- meta -------------------------------------------------------------------------------
    @endpoint
    def health(self) -> Call[dict]:
        """desktopd's /health; a 503 (X display gone) is an answer too: status is "degraded"."""
        return Call("desktopd", "GET", "/health", json_reply, ok_statuses=(200, 503))

    @endpoint
    def openapi(self) -> Call[dict]:
        return Call("desktopd", "GET", "/api/v1/openapi.json", json_reply)

    # -- screen -----------------------------------------------------------------------------
    @endpoint
    def screenshot(self, format: ImageFormat = "png", *, quality: int | None = None,
                   scale: float | None = None, max_width: int | None = None,
                   max_height: int | None = None, region: tuple[int, int, int, int] | None = None,
                   cursor: bool | None = None, size: tuple[int, int] | None = None) -> Call[Screenshot]:
        """The screen or a ``region`` (x, y, width, height); ``.data`` is the encoded image,
        ``.image()`` a Pillow image, ``.array()`` RGB numpy, ``.to_screen()`` maps pixels back.
        ``size``: exactly (width, height) pixels, the aspect may change."""
        params = query(format=format, quality=quality, scale=scale, max_width=max_width,
                       max_height=max_height, cursor=cursor,
                       width=size[0] if size else None, height=size[1] if size else None,
                       region=",".join(str(int(v)) for v in region) if region else None)
        return Call("desktopd", "GET", "/api/v1/screenshot",
                    lambda reply: Screenshot.from_reply(reply, format), params=params)

    # -- pointer ----------------------------------------------------------------------------
    @endpoint
    def pointer(self, event: Mapping[str, JSON] | None = None, *,
                events: Sequence[Mapping[str, JSON]] | None = None) -> Call[dict]:
        """POST /api/v1/tablet with one event or a batch; returns the pointer position after."""
        return _tablet(event, events)

    @endpoint
    def tap(self, x: int, y: int) -> Call[dict]:
        return _tablet({"action": "tap", "x": x, "y": y})

    @endpoint
    def move(self, x: int, y: int) -> Call[dict]:
        return _tablet({"action": "move", "x": x, "y": y})

    @endpoint
    def click(self, x: int | None = None, y: int | None = None, *, button: Button = "left",
              clicks: int = 1, modifiers: Sequence[str] = ()) -> Call[dict]:
        return _tablet(body(action="click", x=x, y=y, button=button, clicks=clicks,
                            modifiers=list(modifiers) or None))

    @endpoint
    def double_click(self, x: int | None = None, y: int | None = None, *, button: Button = "left",
                     modifiers: Sequence[str] = ()) -> Call[dict]:
        return _tablet(body(action="double_click", x=x, y=y, button=button,
                            modifiers=list(modifiers) or None))

    @endpoint
    def mouse_down(self, x: int | None = None, y: int | None = None, *, button: Button = "left") -> Call[dict]:
        return _tablet(body(action="down", x=x, y=y, button=button))

    @endpoint
    def mouse_up(self, x: int | None = None, y: int | None = None, *, button: Button = "left") -> Call[dict]:
        return _tablet(body(action="up", x=x, y=y, button=button))

    @endpoint
    def drag(self, path: Sequence[Point], *, button: Button = "left", duration_ms: int | None = None,
             modifiers: Sequence[str] = ()) -> Call[dict]:
        """Press at the first point, move through the others, release at the last."""
        return _tablet(body(action="drag", path=[list(p) if not isinstance(p, Mapping) else dict(p)
                                                 for p in path],
                            button=button, duration_ms=duration_ms, modifiers=list(modifiers) or None))

    @endpoint
    def scroll(self, x: int | None = None, y: int | None = None, *, dx: int = 0, dy: int = 0,
               modifiers: Sequence[str] = ()) -> Call[dict]:
        """Wheel clicks: dy > 0 down, dx > 0 right."""
        return _tablet(body(action="scroll", x=x, y=y, dx=dx or None, dy=dy or None,
                            modifiers=list(modifiers) or None))

    # -- keyboard ---------------------------------------------------------------------------
    @endpoint
    def type_text(self, text: str, *, delay_ms: float | None = None) -> Call[dict]:
        """Types ``text`` exactly (any Unicode)."""
        return Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                    json=body(text=text, delay_ms=delay_ms))

    @endpoint
    def keys(self, keys: str | Sequence[str], *, action: Literal["press", "down", "up"] = "press",
             delay_ms: float | None = None) -> Call[dict]:
        """xdotool-style combos: "ctrl+shift+t", several separated by spaces, or a list."""
        return Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                    json=body(keys=keys if isinstance(keys, str) else list(keys),
                              action=action, delay_ms=delay_ms))

    @endpoint
    def key_events(self, events: Sequence[Mapping[str, JSON]]) -> Call[dict]:
        """[{"keysym": "a" | 65293, "state": "down" | "up"}, ...]"""
        return Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                    json={"events": list(events)})

    # -- windows ----------------------------------------------------------------------------
    @endpoint
    def tree(self, format: Literal["desktopd", "i3"] | None = None) -> Call[dict]:
        """Top-level windows, bottom to top (or the i3/Sway get_tree shape)."""
        return Call("desktopd", "GET", "/api/v1/tree", json_reply, params=query(format=format))

    @endpoint
    def windows(self) -> Call[list[dict]]:
        """The window list of tree() alone."""
        return Call("desktopd", "GET", "/api/v1/tree", member_reply("windows"))

    @endpoint
    def window(self, window_id: int | str) -> Call[dict]:
        return Call("desktopd", "GET", f"/api/v1/windows/{path_segment(window_id)}", json_reply)

    @endpoint
    def window_action(self, window_id: int | str, action: str, **fields: int) -> Call[dict]:
        """focus, close, minimize, maximize, restore; move (x, y); resize (width, height)."""
        return _window_action(window_id, action, **fields)

    @endpoint
    def focus_window(self, window_id: int | str) -> Call[dict]:
        return _window_action(window_id, "focus")

    @endpoint
    def close_window(self, window_id: int | str) -> Call[dict]:
        return _window_action(window_id, "close")

    @endpoint
    def move_window(self, window_id: int | str, x: int, y: int) -> Call[dict]:
        return _window_action(window_id, "move", x=x, y=y)

    @endpoint
    def resize_window(self, window_id: int | str, width: int, height: int) -> Call[dict]:
        return _window_action(window_id, "resize", width=width, height=height)

    # -- system -----------------------------------------------------------------------------
    @endpoint
    def execute(self, command: str | Sequence[str], *, shell: bool | None = None, cwd: str | None = None,
                env: Mapping[str, str] | None = None, stdin: str | None = None,
                timeout: float | None = None, max_output: int | None = None,
                detach: bool | None = None) -> Call[dict]:
        """Runs a command (argv list, or a string for /bin/sh -c) and waits for it, or launches
        it (detach) and returns its pid. The HTTP call waits as long as the command may run."""
        return Call("desktopd", "POST", "/api/v1/execute", json_reply,
                    json=body(command=command if isinstance(command, str) else list(command),
                              shell=shell, cwd=cwd, env=dict(env) if env else None,
                              stdin=stdin, timeout=timeout, max_output=max_output,
                              detach=detach),
                    extra_timeout=30.0 if timeout is None else float(timeout))

    @endpoint
    def clipboard(self) -> Call[str | None]:
        """The CLIPBOARD selection's text; None when empty."""
        return Call("desktopd", "GET", "/api/v1/clipboard", member_reply("text"))

    @endpoint
    def set_clipboard(self, text: str) -> Call[dict]:
        return Call("desktopd", "PUT", "/api/v1/clipboard", json_reply, json={"text": text})

    # -- accessibility ----------------------------------------------------------------------
    @endpoint
    def accessibility(self, *, interesting: bool | None = None, roles: str | Sequence[str] | None = None,
                      max_depth: int | None = None, max_nodes: int | None = None,
                      **filters: str | int | bool) -> Call[dict]:
        """The desktop's AT-SPI tree; ``filters`` are further query options (app, pid, window,
        merge="browser", ...) as /api/v1/accessibility documents them."""
        return Call("desktopd", "GET", "/api/v1/accessibility", json_reply, params=query(
 interesting=interesting, roles=roles if roles is None or isinstance(roles, str) else ",".join(roles),
 max_depth=max_depth, max_nodes=max_nodes, **filters))

    @endpoint
    def accessibility_do(self, node_id: str, action: str, *, timeout_ms: int | None = None) -> Call[dict]:
        return Call("desktopd", "POST", f"/api/v1/accessibility/{path_segment(node_id)}/do",
                    json_reply, json=body(action=action, timeout_ms=timeout_ms))

    # -- the original desktopd's compatibility endpoints ---------------------------------------
    @endpoint
    def tablet_event(self, events: Sequence[Mapping[str, JSON]]) -> Call[None]:
        return Call("desktopd", "POST", "/api/v1/tablet_event", no_content,
                    json={"events": list(events)})

    @endpoint
    def keyboard_event(self, events: Sequence[Mapping[str, JSON]]) -> Call[None]:
        return Call("desktopd", "POST", "/api/v1/keyboard_event", no_content,
                    json={"events": list(events)})

    # -- vendor tool formats, recording and reset (the harness endpoints) ----------------------
    @endpoint
    def computer_use(self, format: str, action_body: Mapping[str, JSON], **params: JSON) -> Call[dict]:
        """POST /api/v1/computer/<format>: any vendor action format desktopd serves (its
        desktopd_contract/formats/ module; the kit's actions.FORMATS names them), with that
        endpoint's query (display_width_px, display_height_px, settle, ...). anthropic() and
        openai() below are this call with their own arguments spelled out."""
        return computer_use_call(format, action_body, **params)

    @endpoint
    def anthropic(self, tool_input: Mapping[str, JSON], *, display_width_px: int | None = None,
                  display_height_px: int | None = None, screenshot: bool | None = None,
                  settle: float | None = None, settle_quiet: float | None = None,
                  settle_browser: bool | None = None) -> Call[dict]:
        """Runs an Anthropic computer tool call's ``input``; returns ``{"content": [...]}`` (the
        tool_result content blocks to send back to the model), ``executed`` (what ran, in screen
        pixels), ``screen`` and ``display``. Coordinates are in the display the model was told
        about (display_*_px; default the screen); ``screenshot=False`` leaves the image out.
        ``settle`` (the maximum), ``settle_quiet`` and ``settle_browser``: how desktopd waits for
        the screen to stop changing before the screenshot; ``settled`` in the answer says how
        that ended."""
        return computer_use_call("anthropic", tool_input, display_width_px=display_width_px,
                                 display_height_px=display_height_px, screenshot=screenshot,
                                 settle=settle, settle_quiet=settle_quiet,
                                 settle_browser=settle_browser)

    @endpoint
    def anthropic_tool(self, *, display_width_px: int | None = None, display_height_px: int | None = None,
                       version: str | None = None) -> Call[dict]:
        """The computer tool definition to pass to the Anthropic API (sized for this screen, or
        for the display given)."""
        return Call("desktopd", "GET", "/api/v1/computer/anthropic", json_reply,
                    params=query(display_width_px=display_width_px,
                                 display_height_px=display_height_px, version=version))

    @endpoint
    def openai(self, action: Mapping[str, JSON] | None = None, *,
               actions: Sequence[Mapping[str, JSON]] | None = None, call_id: str | None = None,
               display_width_px: int | None = None, display_height_px: int | None = None,
               settle: float | None = None, settle_quiet: float | None = None,
               settle_browser: bool | None = None) -> Call[dict]:
        """Runs an OpenAI computer_call's action (or several, in order); returns its
        computer_call_output (a screenshot) plus ``executed`` (screen pixels) and ``settled``."""
        return computer_use_call("openai", body(action=dict(action) if action is not None else None,
                                                actions=[dict(a) for a in actions] if actions is not None else None,
                                                call_id=call_id),
                                 display_width_px=display_width_px, display_height_px=display_height_px,
                                 settle=settle, settle_quiet=settle_quiet, settle_browser=settle_browser)

    @endpoint
    def step(self, act: Mapping[str, JSON] | None = None, *, screenshot: Mapping[str, JSON] | None = None,
             windows: bool | None = None, pointer: bool | None = None, settle: float | None = None,
             settle_quiet: float | None = None, display_width_px: int | None = None,
             display_height_px: int | None = None, settle_browser: bool | None = None) -> Call[dict]:
        """POST /api/v1/step: at most one act (``{"anthropic": input}``, ``{"openai": action}``,
        ``{"tablet": event}`` or ``{"keyboard": body}``), the settle after it, and the observation
        in one answer: ``settled``, ``screenshot`` (base64 ``data``, ``scale``, ``region``; with
        ``screenshot`` as GET /screenshot's query, e.g. {"format": "jpeg"}), ``windows``, ``pointer``."""
        fields: dict[str, JSON] = {"screenshot": dict(screenshot) if screenshot is not None else None, "windows": windows,
                  "pointer": pointer, "settle": settle, "settle_quiet": settle_quiet,
                  "settle_browser": settle_browser,
                  "display_width_px": display_width_px, "display_height_px": display_height_px}
        fields.update(act or {})   # an act may carry its display query (actions.Planned.step_act)
        return Call("desktopd", "POST", "/api/v1/step", json_reply, json=body(**fields),
                    extra_timeout=120.0)

    @endpoint
    def pointer_position(self) -> Call[dict]:
        """Where the pointer is, screen pixels: {"x", "y"} (Anthropic's cursor_position, read
        without a screenshot)."""
        return Call("desktopd", "POST", "/api/v1/computer/anthropic",
                    member_reply("executed"),
                    json={"action": "cursor_position"})

    @endpoint
    def recording_start(self, *, fps: int | None = None, codec: Literal["h264", "vp9"] | None = None,
                        quality: int | None = None, region: tuple[int, int, int, int] | None = None,
                        max_seconds: float | None = None) -> Call[dict]:
        """Starts a screen recording (one at a time); the answer has its ``id`` and
        ``started_at`` (Unix time of the first frame)."""
        return Call("desktopd", "POST", "/api/v1/recording/start", json_reply, json=body(
 fps=fps, codec=codec, quality=quality, max_seconds=max_seconds,
 region=",".join(str(int(v)) for v in region) if region else None), extra_timeout=30.0)

    @endpoint
    def recording_stop(self) -> Call[dict]:
        """Stops the recording; the answer adds frames, size and duration."""
        return Call("desktopd", "POST", "/api/v1/recording/stop", json_reply, extra_timeout=60.0)

    @endpoint
    def recording(self, recording_id: str) -> Call[bytes]:
        """A finished recording's video file (MP4 or WebM), in memory: download_recording()
        streams a long one to disk instead."""
        return Call("desktopd", "GET", f"/api/v1/recording/{path_segment(recording_id)}",
                    lambda reply: reply.body, extra_timeout=300.0)

    @endpoint
    def download_recording(self, recording_id: str, path: str | os.PathLike) -> Call[Saved]:
        """Streams a finished recording into ``path`` (complete, or not there at all); returns
        its size and SHA-256, to check against recording_stop()'s."""
        return Call("desktopd", "GET", f"/api/v1/recording/{path_segment(recording_id)}",
                    saved_file, extra_timeout=300.0, save_to=Path(path))

    @endpoint
    def delete_recording(self, recording_id: str) -> Call[dict]:
        """Deletes a finished recording from the desktop (once it is downloaded)."""
        return Call("desktopd", "DELETE", f"/api/v1/recording/{path_segment(recording_id)}",
                    json_reply)

    @endpoint
    def demonstration_start(self, *, max_seconds: float | None = None, typing_idle_ms: int | None = None,
                            double_click_ms: int | None = None) -> Call[dict]:
        """Starts capturing a person's input as actions (X11; one at a time: 409 otherwise)."""
        return Call("desktopd", "POST", "/api/v1/demonstration/start", json_reply, json=body(
            max_seconds=max_seconds, typing_idle_ms=typing_idle_ms, double_click_ms=double_click_ms))

    @endpoint
    def demonstration_stop(self) -> Call[dict]:
        """Stops the capture (404 when none runs); what was pending becomes actions."""
        return Call("desktopd", "POST", "/api/v1/demonstration/stop", json_reply)

    @endpoint
    def demonstration(self) -> Call[dict]:
        """The current (or last) demonstration's state."""
        return Call("desktopd", "GET", "/api/v1/demonstration", json_reply)

    @endpoint
    def reset(self, urls: Sequence[str] | None = None, *, close_windows: bool | None = None,
              keep: Sequence[str] | None = None, clear_clipboard: bool | None = None,
              pointer: tuple[int, int] | None = None, browser: bool | None = None,
              profile: str | None = None, isolation: str | None = None) -> Call[dict]:
        """Puts the desktop back for a new episode: input released, other windows closed (but
        ``keep`` WM_CLASS names), clipboard emptied, pointer homed, and, when desktopd knows its
        sidecar, Chromium restarted with ``urls`` (default: its start pages) on a fresh profile,
        or on the named ``profile`` as its last browser left it (logged in, say). ``isolation``:
        "context" (a new browser context of the running Chromium, no launch) or "process" (a new
        Chromium on a fresh on-disk profile); default: the sidecar's."""
        return Call("desktopd", "POST", "/api/v1/reset", json_reply, json=body(
 urls=list(urls) if urls is not None else None, close_windows=close_windows,
 keep=list(keep) if keep is not None else None, clear_clipboard=clear_clipboard,
 pointer=list(pointer) if pointer is not None else None, browser=browser, profile=profile,
 isolation=isolation), extra_timeout=120.0)


def healthy(desktopd: dict, sidecar: dict | None) -> bool:
    """Whether both answers say "ok" (the sidecar's only when there is one)."""
    return desktopd.get("status") == "ok" and (sidecar is None or sidecar.get("status") == "ok")


__all__ = ["DesktopApi", "Reply", "healthy"]
