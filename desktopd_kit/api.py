"""Every desktopd and sidecar endpoint as a typed method, written once for both clients.

Each method only describes its call (calls.Call) and how to decode the answer; the sync client
(Desktop) runs it with requests, the async one (AsyncDesktop) with aiohttp and returns an
awaitable of the same result. Coordinates are screen pixels throughout."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from .calls import JSON, Call, Reply, body, json_reply, no_content, query, saved_file
from .download import Saved
from .screenshot import Screenshot

Point = Sequence[int] | Mapping[str, int]
Button = Literal["left", "middle", "right"] | int
ImageFormat = Literal["png", "jpeg", "webp", "raw"]
WINDOW_ACTIONS = ("focus", "close", "move", "resize", "minimize", "maximize", "restore")


def _field(name: str):  # noqa: ANN202 - a decoder
    return lambda reply: json_reply(reply)[name]  # type: ignore[index]


def _path_segment(value: object) -> str:
    text = str(value)
    if not text or "/" in text or text in (".", ".."):
        from .errors import DesktopError
        raise DesktopError(None, "invalid_argument", f"not a valid id: {value!r}")
    return text


class DesktopApi:
    """The endpoints. Subclasses provide ``_call`` (sync or async)."""

    def _call(self, call: Call):  # noqa: ANN202 - a result, or an awaitable of it
        raise NotImplementedError

    # -- meta -------------------------------------------------------------------------------
    def health(self) -> dict:
        """desktopd's /health; a 503 (X display gone) is an answer too: status is "degraded"."""
        return self._call(Call("desktopd", "GET", "/health", json_reply, ok_statuses=(200, 503)))

    def openapi(self) -> dict:
        return self._call(Call("desktopd", "GET", "/api/v1/openapi.json", json_reply))

    # -- screen -----------------------------------------------------------------------------
    def screenshot(self, format: ImageFormat = "png", *, quality: int | None = None,
                   scale: float | None = None, max_width: int | None = None,
                   max_height: int | None = None, region: tuple[int, int, int, int] | None = None,
                   cursor: bool | None = None) -> Screenshot:
        """The screen or a ``region`` (x, y, width, height); ``.data`` is the encoded image,
        ``.image()`` a Pillow image, ``.array()`` RGB numpy, ``.to_screen()`` maps pixels back."""
        params = query(format=format, quality=quality, scale=scale, max_width=max_width,
                       max_height=max_height, cursor=cursor,
                       region=",".join(str(int(v)) for v in region) if region else None)
        return self._call(Call("desktopd", "GET", "/api/v1/screenshot",
                               lambda reply: Screenshot.from_reply(reply, format), params=params))

    # -- pointer ----------------------------------------------------------------------------
    def pointer(self, event: Mapping[str, JSON] | None = None, *,
                events: Sequence[Mapping[str, JSON]] | None = None) -> dict:
        """POST /api/v1/tablet with one event or a batch; returns the pointer position after."""
        return self._call(Call("desktopd", "POST", "/api/v1/tablet", json_reply,
                               json=dict(event) if events is None else {"events": list(events)}))

    def tap(self, x: int, y: int) -> dict:
        return self.pointer({"action": "tap", "x": x, "y": y})

    def move(self, x: int, y: int) -> dict:
        return self.pointer({"action": "move", "x": x, "y": y})

    def click(self, x: int | None = None, y: int | None = None, *, button: Button = "left",
              clicks: int = 1, modifiers: Sequence[str] = ()) -> dict:
        return self.pointer(body(action="click", x=x, y=y, button=button, clicks=clicks,
                                 modifiers=list(modifiers) or None))

    def double_click(self, x: int | None = None, y: int | None = None, *, button: Button = "left",
                     modifiers: Sequence[str] = ()) -> dict:
        return self.pointer(body(action="double_click", x=x, y=y, button=button,
                                 modifiers=list(modifiers) or None))

    def mouse_down(self, x: int | None = None, y: int | None = None, *, button: Button = "left") -> dict:
        return self.pointer(body(action="down", x=x, y=y, button=button))

    def mouse_up(self, x: int | None = None, y: int | None = None, *, button: Button = "left") -> dict:
        return self.pointer(body(action="up", x=x, y=y, button=button))

    def drag(self, path: Sequence[Point], *, button: Button = "left", duration_ms: int | None = None,
             modifiers: Sequence[str] = ()) -> dict:
        """Press at the first point, move through the others, release at the last."""
        return self.pointer(body(action="drag", path=[list(p) if not isinstance(p, Mapping) else dict(p)
                                                      for p in path],
                                 button=button, duration_ms=duration_ms, modifiers=list(modifiers) or None))

    def scroll(self, x: int | None = None, y: int | None = None, *, dx: int = 0, dy: int = 0,
               modifiers: Sequence[str] = ()) -> dict:
        """Wheel clicks: dy > 0 down, dx > 0 right."""
        return self.pointer(body(action="scroll", x=x, y=y, dx=dx or None, dy=dy or None,
                                 modifiers=list(modifiers) or None))

    # -- keyboard ---------------------------------------------------------------------------
    def type_text(self, text: str, *, delay_ms: float | None = None) -> dict:
        """Types ``text`` exactly (any Unicode)."""
        return self._call(Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                               json=body(text=text, delay_ms=delay_ms)))

    def keys(self, keys: str | Sequence[str], *, action: Literal["press", "down", "up"] = "press",
             delay_ms: float | None = None) -> dict:
        """xdotool-style combos: "ctrl+shift+t", several separated by spaces, or a list."""
        return self._call(Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                               json=body(keys=keys if isinstance(keys, str) else list(keys),
                                         action=action, delay_ms=delay_ms)))

    def key_events(self, events: Sequence[Mapping[str, JSON]]) -> dict:
        """[{"keysym": "a" | 65293, "state": "down" | "up"}, ...]"""
        return self._call(Call("desktopd", "POST", "/api/v1/keyboard", json_reply,
                               json={"events": list(events)}))

    # -- windows ----------------------------------------------------------------------------
    def tree(self, format: Literal["desktopd", "i3"] | None = None) -> dict:
        """Top-level windows, bottom to top (or the i3/Sway get_tree shape)."""
        return self._call(Call("desktopd", "GET", "/api/v1/tree", json_reply, params=query(format=format)))

    def windows(self) -> list[dict]:
        """The window list of tree() alone."""
        return self._call(Call("desktopd", "GET", "/api/v1/tree", _field("windows")))

    def window(self, window_id: int | str) -> dict:
        return self._call(Call("desktopd", "GET", f"/api/v1/windows/{_path_segment(window_id)}", json_reply))

    def window_action(self, window_id: int | str, action: str, **fields: int) -> dict:
        """focus, close, minimize, maximize, restore; move (x, y); resize (width, height)."""
        if action not in WINDOW_ACTIONS:
            from .errors import DesktopError
            raise DesktopError(None, "invalid_argument", f"action must be one of {WINDOW_ACTIONS}")
        return self._call(Call("desktopd", "POST", f"/api/v1/windows/{_path_segment(window_id)}/{action}",
                               json_reply, json=fields or None))

    def focus_window(self, window_id: int | str) -> dict:
        return self.window_action(window_id, "focus")

    def close_window(self, window_id: int | str) -> dict:
        return self.window_action(window_id, "close")

    def move_window(self, window_id: int | str, x: int, y: int) -> dict:
        return self.window_action(window_id, "move", x=x, y=y)

    def resize_window(self, window_id: int | str, width: int, height: int) -> dict:
        return self.window_action(window_id, "resize", width=width, height=height)

    # -- system -----------------------------------------------------------------------------
    def execute(self, command: str | Sequence[str], *, shell: bool | None = None, cwd: str | None = None,
                env: Mapping[str, str] | None = None, stdin: str | None = None,
                timeout: float | None = None, max_output: int | None = None,
                detach: bool | None = None) -> dict:
        """Runs a command (argv list, or a string for /bin/sh -c) and waits for it, or launches
        it (detach) and returns its pid. The HTTP call waits as long as the command may run."""
        return self._call(Call("desktopd", "POST", "/api/v1/execute", json_reply,
                               json=body(command=command if isinstance(command, str) else list(command),
                                         shell=shell, cwd=cwd, env=dict(env) if env else None,
                                         stdin=stdin, timeout=timeout, max_output=max_output,
                                         detach=detach),
                               extra_timeout=30.0 if timeout is None else float(timeout)))

    def clipboard(self) -> str | None:
        """The CLIPBOARD selection's text; None when empty."""
        return self._call(Call("desktopd", "GET", "/api/v1/clipboard", _field("text")))

    def set_clipboard(self, text: str) -> dict:
        return self._call(Call("desktopd", "PUT", "/api/v1/clipboard", json_reply, json={"text": text}))

    # -- accessibility ----------------------------------------------------------------------
    def accessibility(self, *, interesting: bool | None = None, roles: str | Sequence[str] | None = None,
                      max_depth: int | None = None, max_nodes: int | None = None,
                      **filters: str | int | bool) -> dict:
        """The desktop's AT-SPI tree; ``filters`` are further query options (app, pid, window,
        merge="browser", ...) as /api/v1/accessibility documents them."""
        return self._call(Call("desktopd", "GET", "/api/v1/accessibility", json_reply, params=query(
            interesting=interesting, roles=roles if roles is None or isinstance(roles, str) else ",".join(roles),
            max_depth=max_depth, max_nodes=max_nodes, **filters)))

    def accessibility_do(self, node_id: str, action: str, *, timeout_ms: int | None = None) -> dict:
        return self._call(Call("desktopd", "POST", f"/api/v1/accessibility/{_path_segment(node_id)}/do",
                               json_reply, json=body(action=action, timeout_ms=timeout_ms)))

    # -- the original desktopd's compatibility endpoints ---------------------------------------
    def tablet_event(self, events: Sequence[Mapping[str, JSON]]) -> None:
        return self._call(Call("desktopd", "POST", "/api/v1/tablet_event", no_content,
                               json={"events": list(events)}))

    def keyboard_event(self, events: Sequence[Mapping[str, JSON]]) -> None:
        return self._call(Call("desktopd", "POST", "/api/v1/keyboard_event", no_content,
                               json={"events": list(events)}))

    # -- vendor tool formats, recording and reset (the harness endpoints) ----------------------
    def computer_use(self, format: str, action_body: Mapping[str, JSON], **params: JSON) -> dict:
        """POST /api/v1/computer/<format>: any vendor action format desktopd serves (its
        desktopd/computer/formats/ module; the kit's actions.FORMATS names them), with that
        endpoint's query (display_width_px, display_height_px, settle, ...). anthropic() and
        openai() below are this call with their own arguments spelled out."""
        return self._call(Call("desktopd", "POST", f"/api/v1/computer/{_path_segment(format)}", json_reply,
                               params=query(**params), json=dict(action_body), extra_timeout=120.0))

    def anthropic(self, tool_input: Mapping[str, JSON], *, display_width_px: int | None = None,
                  display_height_px: int | None = None, screenshot: bool | None = None,
                  settle: float | None = None, settle_quiet: float | None = None,
                  settle_browser: bool | None = None) -> dict:
        """Runs an Anthropic computer tool call's ``input``; returns ``{"content": [...]}`` (the
        tool_result content blocks to send back to the model), ``executed`` (what ran, in screen
        pixels), ``screen`` and ``display``. Coordinates are in the display the model was told
        about (display_*_px; default the screen); ``screenshot=False`` leaves the image out.
        ``settle`` (the maximum), ``settle_quiet`` and ``settle_browser``: how desktopd waits for
        the screen to stop changing before the screenshot; ``settled`` in the answer says how
        that ended."""
        return self.computer_use("anthropic", tool_input, display_width_px=display_width_px,
                                 display_height_px=display_height_px, screenshot=screenshot, settle=settle,
                                 settle_quiet=settle_quiet, settle_browser=settle_browser)

    def anthropic_tool(self, *, display_width_px: int | None = None, display_height_px: int | None = None,
                       version: str | None = None) -> dict:
        """The computer tool definition to pass to the Anthropic API (sized for this screen, or
        for the display given)."""
        return self._call(Call("desktopd", "GET", "/api/v1/computer/anthropic", json_reply,
                               params=query(display_width_px=display_width_px,
                                            display_height_px=display_height_px, version=version)))

    def openai(self, action: Mapping[str, JSON] | None = None, *,
               actions: Sequence[Mapping[str, JSON]] | None = None, call_id: str | None = None,
               display_width_px: int | None = None, display_height_px: int | None = None,
               settle: float | None = None, settle_quiet: float | None = None,
               settle_browser: bool | None = None) -> dict:
        """Runs an OpenAI computer_call's action (or several, in order); returns its
        computer_call_output (a screenshot) plus ``executed`` (screen pixels) and ``settled``."""
        return self.computer_use("openai", body(action=dict(action) if action is not None else None,
                                                actions=[dict(a) for a in actions] if actions is not None else None,
                                                call_id=call_id),
                                 display_width_px=display_width_px, display_height_px=display_height_px,
                                 settle=settle, settle_quiet=settle_quiet, settle_browser=settle_browser)

    def step(self, act: Mapping[str, JSON] | None = None, *, screenshot: Mapping[str, JSON] | None = None,
             windows: bool | None = None, pointer: bool | None = None, settle: float | None = None,
             settle_quiet: float | None = None, display_width_px: int | None = None,
             display_height_px: int | None = None, settle_browser: bool | None = None) -> dict:
        """POST /api/v1/step: at most one act (``{"anthropic": input}``, ``{"openai": action}``,
        ``{"tablet": event}`` or ``{"keyboard": body}``), the settle after it, and the observation
        in one answer: ``settled``, ``screenshot`` (base64 ``data``, ``scale``, ``region``; with
        ``screenshot`` as GET /screenshot's query, e.g. {"format": "jpeg"}), ``windows``, ``pointer``."""
        fields = {"screenshot": dict(screenshot) if screenshot is not None else None, "windows": windows,
                  "pointer": pointer, "settle": settle, "settle_quiet": settle_quiet,
                  "settle_browser": settle_browser,
                  "display_width_px": display_width_px, "display_height_px": display_height_px}
        fields.update(act or {})   # an act may carry its display query (actions.Planned.step_act)
        return self._call(Call("desktopd", "POST", "/api/v1/step", json_reply, json=body(**fields),
                               extra_timeout=120.0))

    def pointer_position(self) -> dict:
        """Where the pointer is, screen pixels: {"x", "y"} (Anthropic's cursor_position, read
        without a screenshot)."""
        return self._call(Call("desktopd", "POST", "/api/v1/computer/anthropic",
                               lambda reply: json_reply(reply)["executed"],  # type: ignore[index]
                               json={"action": "cursor_position"}))

    def recording_start(self, *, fps: int | None = None, codec: Literal["h264", "vp9"] | None = None,
                        quality: int | None = None, region: tuple[int, int, int, int] | None = None,
                        max_seconds: float | None = None) -> dict:
        """Starts a screen recording (one at a time); the answer has its ``id`` and
        ``started_at`` (Unix time of the first frame)."""
        return self._call(Call("desktopd", "POST", "/api/v1/recording/start", json_reply, json=body(
            fps=fps, codec=codec, quality=quality, max_seconds=max_seconds,
            region=",".join(str(int(v)) for v in region) if region else None), extra_timeout=30.0))

    def recording_stop(self) -> dict:
        """Stops the recording; the answer adds frames, size and duration."""
        return self._call(Call("desktopd", "POST", "/api/v1/recording/stop", json_reply, extra_timeout=60.0))

    def recording(self, recording_id: str) -> bytes:
        """A finished recording's video file (MP4 or WebM), in memory: download_recording()
        streams a long one to disk instead."""
        return self._call(Call("desktopd", "GET", f"/api/v1/recording/{_path_segment(recording_id)}",
                               lambda reply: reply.body, extra_timeout=300.0))

    def download_recording(self, recording_id: str, path: str | os.PathLike) -> Saved:
        """Streams a finished recording into ``path`` (complete, or not there at all); returns
        its size and SHA-256, to check against recording_stop()'s."""
        return self._call(Call("desktopd", "GET", f"/api/v1/recording/{_path_segment(recording_id)}",
                               saved_file, extra_timeout=300.0, save_to=Path(path)))

    def delete_recording(self, recording_id: str) -> dict:
        """Deletes a finished recording from the desktop (once it is downloaded)."""
        return self._call(Call("desktopd", "DELETE", f"/api/v1/recording/{_path_segment(recording_id)}",
                               json_reply))

    def reset(self, urls: Sequence[str] | None = None, *, close_windows: bool | None = None,
              keep: Sequence[str] | None = None, clear_clipboard: bool | None = None,
              pointer: tuple[int, int] | None = None, browser: bool | None = None,
              profile: str | None = None) -> dict:
        """Puts the desktop back for a new episode: input released, other windows closed (but
        ``keep`` WM_CLASS names), clipboard emptied, pointer homed, and, when desktopd knows its
        sidecar, Chromium restarted with ``urls`` (default: its start pages) on a fresh profile,
        or on the named ``profile`` as its last browser left it (logged in, say)."""
        return self._call(Call("desktopd", "POST", "/api/v1/reset", json_reply, json=body(
            urls=list(urls) if urls is not None else None, close_windows=close_windows,
            keep=list(keep) if keep is not None else None, clear_clipboard=clear_clipboard,
            pointer=list(pointer) if pointer is not None else None, browser=browser, profile=profile),
            extra_timeout=120.0))

    # -- sidecar: the browser ---------------------------------------------------------------
    def sidecar_health(self) -> dict:
        return self._call(Call("sidecar", "GET", "/health", json_reply, ok_statuses=(200, 503)))

    def layout(self, *, tab: str | None = None, interesting: bool | None = None,
               roles: str | Sequence[str] | None = None, max_nodes: int | None = None,
               fresh: bool | None = None) -> dict:
        """Every tab's accessibility tree with document, viewport and screen bounds."""
        return self._call(Call("sidecar", "GET", "/layout", json_reply, params=query(
            tab=tab, interesting=interesting, max_nodes=max_nodes, fresh=fresh,
            roles=roles if roles is None or isinstance(roles, str) else ",".join(roles))))

    def tabs(self) -> list[dict]:
        return self._call(Call("sidecar", "GET", "/tabs", json_reply))

    def tab(self, tab_id: str) -> dict:
        return self._call(Call("sidecar", "GET", f"/tabs/{_path_segment(tab_id)}", json_reply))

    def targets(self) -> list[dict]:
        return self._call(Call("sidecar", "GET", "/targets", json_reply))

    def open_tab(self, url: str = "about:blank", *, background: bool = False) -> dict:
        return self._call(Call("sidecar", "POST", "/tabs", json_reply, json={"url": url, "background": background}))

    def close_tab(self, tab_id: str) -> dict:
        return self._call(Call("sidecar", "DELETE", f"/tabs/{_path_segment(tab_id)}", json_reply))

    def activate_tab(self, tab_id: str) -> dict:
        return self._call(Call("sidecar", "POST", f"/tabs/{_path_segment(tab_id)}/activate", json_reply))

    def navigate(self, tab_id: str, url: str, *, wait: Literal["load", "none"] = "load",
                 timeout: float | None = None) -> dict:
        """Loads ``url`` in the tab; with wait="load" answers after its load event."""
        return self._call(Call("sidecar", "POST", f"/tabs/{_path_segment(tab_id)}/navigate", json_reply,
                               json=body(url=url, wait=wait, timeout=timeout),
                               extra_timeout=float(timeout or 30.0)))

    def reload_tab(self, tab_id: str, *, wait: Literal["load", "none"] = "load",
                   timeout: float | None = None) -> dict:
        return self._call(Call("sidecar", "POST", f"/tabs/{_path_segment(tab_id)}/reload", json_reply,
                               json=body(wait=wait, timeout=timeout), extra_timeout=float(timeout or 30.0)))

    def sidecar_openapi(self) -> dict:
        return self._call(Call("sidecar", "GET", "/openapi.json", json_reply))

    # -- sidecar: lasting browser state -----------------------------------------------------
    def profiles(self) -> dict:
        """{"profiles": [{"name", "in_use", "bytes", "modified"}], "current": name or None}"""
        return self._call(Call("sidecar", "GET", "/profiles", json_reply))

    def delete_profile(self, name: str) -> dict:
        return self._call(Call("sidecar", "DELETE", f"/profiles/{_path_segment(name)}", json_reply))

    def storage_state(self, origins: Sequence[str] = ()) -> dict:
        """Cookies and localStorage in Playwright's storageState format (secrets: keep private)."""
        return self._call(Call("sidecar", "GET", "/storage-state", json_reply,
                               params=query(origins=",".join(origins) or None), extra_timeout=30.0))

    def load_storage_state(self, state: Mapping[str, JSON]) -> dict:
        """Loads a storageState (from storage_state(), a file, or Playwright) into the browser."""
        return self._call(Call("sidecar", "POST", "/storage-state", json_reply, json=dict(state),
                               extra_timeout=30.0))

    def har_start(self, *, tab: str | None = None, content: bool | None = None,
                  max_body_bytes: int | None = None) -> dict:
        """Starts capturing every tab's requests (or one more ``tab``'s) as HAR."""
        return self._call(Call("sidecar", "POST", "/har/start", json_reply,
                               json=body(tab=tab, content=content, max_body_bytes=max_body_bytes)))

    def har_stop(self, *, tab: str | None = None) -> dict:
        """Stops the capture (or only ``tab``'s) and returns it as HAR 1.2."""
        return self._call(Call("sidecar", "POST", "/har/stop", json_reply, json=body(tab=tab),
                               extra_timeout=10.0))

    def har(self, *, since: int = 0) -> dict:
        """The running capture's entries from ``since`` (an entry's _seq) on, and ``next``."""
        return self._call(Call("sidecar", "GET", "/har", json_reply, params=query(since=since)))


def healthy(desktopd: dict, sidecar: dict | None) -> bool:
    """Whether both answers say "ok" (the sidecar's only when there is one)."""
    return desktopd.get("status") == "ok" and (sidecar is None or sidecar.get("status") == "ok")


__all__ = ["DesktopApi", "Reply", "healthy"]
