"""``SwayDesktop``: the Sway backend's one object, with the X11 ``Desktop``'s methods
(desktopd/backend/protocol.py names them). Call every method from ``executor`` (one thread, in order).

Connections (the Wayland socket, Sway's IPC socket, the clipboard's own Wayland connection) are
opened lazily on that thread; a compositor that went away drops them all and raises
``CompositorUnavailable``, and the next call connects again."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from PIL import Image

from desktopd.backend.protocol import POINTER_SOURCES, Region, check_region, check_typing
from desktopd.x11.keynames import char_to_keysym, parse_key_name
from desktopd_contract.windows import SwayWindowInfo, WindowActionResult
from httpapi.json_types import JSONObject

from .clipboard import Clipboard
from .input import VirtualKeyboard, VirtualPointer
from swayipc.ipc import IpcError, SwayIpc, find_socket
from swayipc.tree import SwayNode
from .registry import MissingProtocol, Registry
from .screencopy import ScreenCopier, Shot
from .windows import WindowNotFound, Windows
from .wire import Connection, ConnectionLost, WaylandError, socket_path

__all__ = ["CompositorUnavailable", "SwayDesktop", "SwayError", "WindowNotFound"]

log = logging.getLogger(__name__)
T = TypeVar("T")
BACKEND = "sway"
# The protocols each feature needs (reported in /health).
PROTOCOLS = ("zwlr_screencopy_manager_v1", "zwlr_virtual_pointer_manager_v1",
             "zwp_virtual_keyboard_manager_v1", "zwlr_data_control_manager_v1")


class CompositorUnavailable(Exception):
    """Sway (its Wayland or IPC socket) is not there."""


class SwayError(Exception):
    """The compositor refused something or answered what desktopd cannot read."""


@dataclass
class Session:
    """Everything one connection to the compositor holds."""

    conn: Connection
    registry: Registry
    ipc: SwayIpc
    copier: ScreenCopier
    pointer: VirtualPointer
    keyboard: VirtualKeyboard
    windows: Windows
    width: int
    height: int
    version: str

    def close(self) -> None:
        self.copier.close()
        self.ipc.close()
        self.conn.close()


def _output_size(ipc: SwayIpc) -> tuple[int, int]:
    active = [o for o in ipc.outputs() if o.get("active")]
    if not active:
        raise CompositorUnavailable("Sway has no active output")
    right = max(o["rect"]["x"] + o["rect"]["width"] for o in active)
    bottom = max(o["rect"]["y"] + o["rect"]["height"] for o in active)
    return int(right), int(bottom)


class SwayDesktop:
    backend = BACKEND
    atspi_extents = "window"   # Wayland clients never learn where their windows are

    def __init__(self, wayland_display: str | None = None) -> None:
        self.display_name = wayland_display or os.environ.get("WAYLAND_DISPLAY") or "wayland-1"
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktopd-sway")
        self._session: Session | None = None
        self._clipboard: Clipboard | None = None
        self._lock = threading.RLock()
        self.last_error: str | None = None
        self.connected_at: float | None = None
        self.connects = 0

    # ---------------------------------------------------------------- connection handling
    @property
    def connected(self) -> bool:
        return self._session is not None

    def connect(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            try:
                self._session = self._open()
            except (ConnectionLost, IpcError, OSError) as exc:
                self.last_error = str(exc)
                raise CompositorUnavailable(f"Sway ({self.display_name}): {exc}") from None
            except (MissingProtocol, WaylandError) as exc:
                self.last_error = str(exc)
                raise SwayError(str(exc)) from None
            self.connects += 1
            self.connected_at = time.time()
            self.last_error = None
            log.info("connected to Sway %s on %s (%dx%d)", self._session.version,
                     self.display_name, self._session.width, self._session.height)

    def _open(self) -> Session:
        conn = Connection(socket_path(self.display_name))
        try:
            registry = Registry(conn)
            ipc = SwayIpc(find_socket())
            width, height = _output_size(ipc)
            seat, _ = registry.bind("wl_seat", 1)
            output, _ = registry.bind("wl_output", 1)
            copier = ScreenCopier(conn, registry, output)
            pointer = VirtualPointer(conn, registry, width, height)
            keyboard = VirtualKeyboard(conn, registry, seat.id)
            conn.roundtrip()   # a protocol error in the set-up shows here, not on first use
            version = ipc.version().get("human_readable", "")
            return Session(conn, registry, ipc, copier, pointer, keyboard, Windows(ipc),
                           width, height, version)
        except BaseException:
            conn.close()
            raise

    def _drop(self, cause: BaseException | None) -> None:
        if cause is not None:
            self.last_error = f"Sway connection lost: {type(cause).__name__}: {cause}"
            log.warning("%s (%s)", self.last_error, self.display_name)
        session, self._session = self._session, None
        clipboard, self._clipboard = self._clipboard, None
        for part in (clipboard, session):
            if part is not None:
                try:
                    part.close()
                except OSError as exc:
                    log.debug("closing %s failed: %s", type(part).__name__, exc)

    def ensure_connected(self) -> None:
        with self._lock:
            if self._session is not None:
                try:
                    self._session.conn.roundtrip()
                    return
                except (ConnectionLost, WaylandError, OSError) as exc:
                    self._drop(exc)
            self.connect()

    def _call(self, fn: Callable[[Session], T], *, retry: bool = False) -> T:
        with self._lock:
            for attempt in (0, 1):
                had_session = self._session is not None
                self.connect()
                assert self._session is not None
                try:
                    return fn(self._session)
                except (ConnectionLost, IpcError, BrokenPipeError, ConnectionResetError) as exc:
                    self._drop(exc)
                    if retry and attempt == 0 and had_session:
                        continue
                    raise CompositorUnavailable(self.last_error or str(exc)) from None
                except WaylandError as exc:
                    # A protocol error ends the connection (Wayland's rule): connect afresh next time.
                    self._drop(exc)
                    raise SwayError(str(exc)) from None
            raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            if self._session is not None:
                try:
                    self._session.keyboard.release_all()
                    self._session.pointer.release_all()
                except (WaylandError, OSError) as exc:
                    log.debug("cleanup on close failed: %s", exc)
            self._drop(None)

    # ------------------------------------------------------------------------- screen info
    def screen_size(self) -> tuple[int, int]:
        return self._call(lambda s: (s.width, s.height), retry=True)

    def info(self) -> JSONObject:
        """State for /health. Never raises: a missing compositor is reported, not thrown."""
        try:
            self.ensure_connected()
        except (CompositorUnavailable, SwayError) as exc:
            return {"backend": BACKEND, "display": self.display_name, "connected": False,
                    "connects": self.connects, "last_error": str(exc)}
        session = self._session
        assert session is not None
        source = self.pointer_source()
        return {
            "backend": BACKEND, "display": self.display_name, "connects": self.connects,
            "last_error": self.last_error, "connected": True, "connected_since": self.connected_at,
            "width": session.width, "height": session.height, "depth": 24,
            "protocols": {name: session.registry.has(name) for name in PROTOCOLS},
            "capture_backend": "wlr-screencopy",
            "pointer": {"source": source, "detail": POINTER_SOURCES[source]},
            "window_manager": self.window_manager(),
            "vendor": session.version,
        }

    # ---------------------------------------------------------------------------- capture
    def capture(self, region: Region | None = None, cursor: bool = False) -> Image.Image:
        return self._call(lambda s: self._shot(s, region, cursor).to_image(), retry=True)

    def capture_raw(self, region: Region | None = None, cursor: bool = False
                    ) -> tuple[bytes, int, int]:
        def grab(session: Session) -> tuple[bytes, int, int]:
            shot = self._shot(session, region, cursor)
            return shot.to_bgrx(), shot.layout.width, shot.layout.height
        return self._call(grab, retry=True)

    @staticmethod
    def _shot(session: Session, region: Region | None, cursor: bool) -> Shot:
        whole = region is None
        box = check_region(region, session.width, session.height)
        return session.copier.capture(None if whole else box, cursor)

    @property
    def capture_backend(self) -> str:
        return "wlr-screencopy"

    # ---------------------------------------------------------------------------- pointer
    def pointer_position(self) -> tuple[int, int]:
        return self._call(lambda s: s.pointer.position)

    def pointer_source(self) -> str:
        # Wayland has no request that reads the pointer (Sway's IPC does not say it either).
        return self._call(lambda s: "last_set" if s.pointer.moved else "assumed")

    def pointer_move(self, x: int, y: int) -> None:
        self._call(lambda s: s.pointer.move(int(x), int(y)))

    def pointer_button(self, button: int, down: bool) -> None:
        self._call(lambda s: s.pointer.button(int(button), bool(down)))

    def scroll(self, dx: int, dy: int) -> None:
        self._call(lambda s: s.pointer.scroll(int(dx), int(dy)))

    # --------------------------------------------------------------------------- keyboard
    @staticmethod
    def parse_key_name(name: str) -> int:
        return parse_key_name(name)

    def keysym(self, keysym: int, down: bool) -> None:
        self._call(lambda s: s.keyboard.keysym(int(keysym), bool(down)))

    def key(self, name: str, down: bool) -> None:
        keysym = parse_key_name(name)   # ValueError before touching the compositor
        self.keysym(keysym, down)

    def type_text(self, text: str, delay_ms: float = 0) -> None:
        check_typing(text, delay_ms)
        keysyms = [char_to_keysym(char) for char in text]
        self._call(lambda s: s.keyboard.type_keysyms(keysyms, delay_ms))

    def release_all_input(self) -> None:
        def release(session: Session) -> None:
            session.keyboard.release_all()
            session.pointer.release_all()
        self._call(release)

    # ---------------------------------------------------------------------------- windows
    def windows(self) -> list[SwayWindowInfo]:
        return self._call(lambda s: s.windows.list(), retry=True)

    def window(self, window_id: int) -> SwayWindowInfo:
        return self._call(lambda s: s.windows.get(int(window_id)), retry=True)

    def window_manager(self) -> JSONObject:
        return {"managed": True, "name": "sway"}

    def window_action(self, window_id: int, action: str, **params: float) -> WindowActionResult:
        return self._call(lambda s: s.windows.act(int(window_id), action, **params))

    def native_tree(self) -> SwayNode:
        """Sway's own get_tree reply: the i3 shape, native."""
        return self._call(lambda s: s.ipc.tree(), retry=True)

    # -------------------------------------------------------------------------- clipboard
    def _clipboard_owner(self) -> Clipboard:
        if self._clipboard is None or not self._clipboard.alive:
            if self._clipboard is not None:
                self._clipboard.close()
            self._clipboard = Clipboard(socket_path(self.display_name))
        return self._clipboard

    def clipboard_get(self, timeout: float = 2.0) -> str | None:
        if not 0 < timeout <= 30:
            raise ValueError(f"timeout: must be in (0, 30] seconds, got {timeout}")
        return self._call(lambda s: self._clipboard_owner().get_text(timeout), retry=True)

    def clipboard_clear(self) -> None:
        self._call(lambda s: self._clipboard_owner().clear())

    def clipboard_set(self, text: str) -> None:
        if not isinstance(text, str):
            raise ValueError(f"text: expected a string, got {type(text).__name__}")
        self._call(lambda s: self._clipboard_owner().set_text(text))
