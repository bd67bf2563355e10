"""Sway's windows: the IPC tree read as desktopd's window list, and window actions as Sway
commands. A window's id is its Sway container id (``con_id``), as ``swaymsg -t get_tree``
prints it; the fields are X11's (desktopd/x11/windows.py) plus ``app_id`` and ``shell``."""

from __future__ import annotations

import os
import select
import signal
import socket
import time
from collections.abc import Callable
from desktopd_contract.windows import Bounds, SwayWindowInfo, WindowActionResult
from swayipc.ipc import HEADER, MAGIC, SwayIpc
from swayipc.tree import Rect, SwayNode, leaves

ACTIONS = ("focus", "close", "move", "resize", "minimize", "maximize", "restore")
ACTION_SETTLE_S = 1.0   # upper bound on waiting for Sway / the app to carry an action out
SUBSCRIBE = 2
SCRATCHPAD = "__i3_scratch"


class WindowNotFound(LookupError):
    def __init__(self, window_id: int) -> None:
        super().__init__(f"no window with id {window_id}")
        self.window_id = window_id


def _bounds(box: Rect) -> Bounds:
    return {"x": int(box["x"]), "y": int(box["y"]), "width": int(box["width"]),
            "height": int(box["height"]), "space": "screen"}


def describe(node: SwayNode, workspace: SwayNode | None, index: int,
             workspaces: list[str | None]) -> SwayWindowInfo:
    props = node.get("window_properties") or {}
    app_id = node.get("app_id")
    instance, klass = props.get("instance") or app_id, props.get("class") or app_id
    frame: Rect = node["rect"]
    inside: Rect = node.get("window_rect") or {"x": 0, "y": 0, "width": 0, "height": 0}
    ws_name = workspace.get("name") if workspace else None
    minimized = ws_name == SCRATCHPAD
    return {
        "id": int(node["id"]), "frame_id": int(node["id"]), "title": node.get("name") or "",
        "wm_class": [instance, klass] if instance or klass else [], "app_id": app_id,
        "pid": node.get("pid"), "shell": node.get("shell"),
        "desktop": workspaces.index(ws_name) if ws_name in workspaces else None,
        "stacking": index, "focused": bool(node.get("focused")), "minimized": minimized,
        "maximized": bool(node.get("fullscreen_mode")), "visible": bool(node.get("visible")),
        "window_type": "normal", "transient_for": None,
        "frame": _bounds(frame),
        "client": _bounds({"x": frame["x"] + inside["x"], "y": frame["y"] + inside["y"],
                           "width": inside["width"], "height": inside["height"]}),
    }


def window_list(tree: SwayNode) -> list[SwayWindowInfo]:
    """Every window, bottom to top as Sway shows them: the scratchpad's (hidden), then the tiled
    ones, then the floating ones (drawn on top); in the tree's order within each."""
    workspaces = [node["name"] for output in tree.get("nodes", []) for node in output.get("nodes", [])
                  if node.get("type") == "workspace" and node.get("name") != SCRATCHPAD]

    def layer(pair: tuple[SwayNode, SwayNode | None]) -> int:
        node, workspace = pair
        if workspace is not None and workspace.get("name") == SCRATCHPAD:
            return 0
        return 2 if node.get("type") == "floating_con" else 1

    found = sorted(leaves(tree, None), key=layer)
    return [describe(node, ws, i, workspaces) for i, (node, ws) in enumerate(found)]


class WindowEvents:
    """A second IPC connection subscribed to window events: what an action waits on."""

    def __init__(self, path: str) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self._sock.connect(path)
        payload = b'["window"]'
        self._sock.sendall(HEADER.pack(MAGIC, len(payload), SUBSCRIBE) + payload)
        self._buffer = b""
        self._drain_one(time.monotonic() + ACTION_SETTLE_S)   # the subscription's reply

    def _drain_one(self, deadline: float) -> bool:
        while True:
            if len(self._buffer) >= HEADER.size:
                _, size, _ = HEADER.unpack_from(self._buffer)
                if len(self._buffer) >= HEADER.size + size:
                    self._buffer = self._buffer[HEADER.size + size:]
                    return True
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._sock], [], [], left)[0]:
                return False
            chunk = self._sock.recv(65536)
            if not chunk:
                return False
            self._buffer += chunk

    def wait(self, deadline: float) -> bool:
        """One window event came before ``deadline``."""
        return self._drain_one(deadline)

    def close(self) -> None:
        self._sock.close()


class Windows:
    def __init__(self, ipc: SwayIpc) -> None:
        self.ipc = ipc

    def list(self) -> list[SwayWindowInfo]:
        return window_list(self.ipc.tree())

    def get(self, window_id: int) -> SwayWindowInfo:
        for info in self.list():
            if info["id"] == window_id:
                return info
        raise WindowNotFound(window_id)

    def _command(self, window_id: int, command: str) -> str:
        text = f"[con_id={window_id}] {command}"
        for result in self.ipc.command(text):
            if not result.get("success"):
                raise ValueError(f"action: Sway refused {command!r}: {result.get('error')}")
        return f"sway: {command}"

    def act(self, window_id: int, action: str, **params: float) -> WindowActionResult:
        if action not in ACTIONS:
            raise ValueError(f"action: unknown window action {action!r}; one of {', '.join(ACTIONS)}")
        info = self.get(window_id)
        events = WindowEvents(self.ipc.path)
        try:
            method = self._carry_out(info, action, params)
            if action == "close":
                return {"id": window_id, "action": action, "method": method,
                        "closed": self._wait(events, lambda: not any(
                            w["id"] == window_id for w in self.list()))}
            after: SwayWindowInfo | None = None

            def done() -> bool:
                nonlocal after
                try:
                    after = self.get(window_id)
                except WindowNotFound:
                    after = None
                    return True
                return _achieved(after, action, params)
            self._wait(events, done)
            return {"id": window_id, "action": action, "method": method, "window": after}
        finally:
            events.close()

    @staticmethod
    def _wait(events: WindowEvents, done: Callable[[], bool]) -> bool:
        deadline = time.monotonic() + ACTION_SETTLE_S
        while not done():
            if not events.wait(deadline):
                return bool(done())
        return True

    def _carry_out(self, info: SwayWindowInfo, action: str, params: dict[str, float]) -> str:
        wid = info["id"]
        if action == "focus":
            return self._command(wid, "focus")
        if action == "close":
            pid = info["pid"]
            if params.get("force") and pid:
                os.kill(pid, signal.SIGKILL)
                return "SIGKILL to the window's process"
            return self._command(wid, "kill")
        if action == "move":
            return self._command(wid, f"floating enable, move absolute position "
                                      f"{int(params['x'])} {int(params['y'])}")
        if action == "resize":
            return self._command(wid, f"floating enable, resize set width {int(params['width'])} px "
                                      f"height {int(params['height'])} px")
        if action == "minimize":
            return self._command(wid, "move scratchpad")
        if action == "maximize":
            return self._command(wid, "fullscreen enable")
        # restore: out of the scratchpad and out of fullscreen, back into the tiling.
        if info["minimized"]:
            self._command(wid, "scratchpad show")
            return self._command(wid, "floating disable")
        return self._command(wid, "fullscreen disable")


def _achieved(info: SwayWindowInfo, action: str, params: dict[str, float]) -> bool:
    if action == "move":
        return (info["frame"]["x"], info["frame"]["y"]) == (params["x"], params["y"])
    if action == "resize":
        return (info["client"]["width"], info["client"]["height"]) == (params["width"], params["height"])
    if action == "minimize":
        return bool(info["minimized"])
    if action == "maximize":
        return bool(info["maximized"])
    if action == "focus":
        return bool(info["focused"])
    if action == "restore":
        return not info["minimized"] and not info["maximized"]
    return True

