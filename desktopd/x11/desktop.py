"""``X11Desktop``: the X layer's one object (see docs/contracts.md).

Connections are opened lazily and only on the executor's thread, never at import or in
``__init__``. A dead server (python-xlib's ConnectionClosedError, a broken pipe, or libX11's I/O
error on the capture connection) drops every connection and raises ``DisplayUnavailable``; the
next call (or ``ensure_connected``) reconnects, so desktopd recovers when the display returns.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from PIL import Image
from Xlib import error as xerror
from Xlib import display as xdisplay  # for annotations
from Xlib.protocol.rq import Request

from desktopd.backend.protocol import check_typing
from desktopd_contract.windows import WindowActionResult, WindowInfo
from httpapi.json_types import JSONObject

from .capture import Capturer, Region
from .clipboard import Clipboard
from .connection import open_display
from .errors import DisplayUnavailable, WindowNotFound, X11Error, is_connection_loss
from .keyboard import Keyboard
from .keynames import parse_key_name
from .pointer import Pointer
from .windows import Windows

__all__ = ["X11Desktop", "DisplayUnavailable", "WindowNotFound", "X11Error"]

log = logging.getLogger(__name__)
T = TypeVar("T")

# Scratch keycodes get their original keysyms back once typing has been quiet this long.
SCRATCH_RESTORE_AFTER_S = 2.0


class X11Desktop:
    """Drives one X display. Call every method from ``executor`` (one thread, in order)."""

    backend = "x11"
    atspi_extents = "screen"   # X clients know where their windows are

    def __init__(self, display: str | None = None, *, use_shm: bool = True) -> None:
        self.display_name = display or os.environ.get("DISPLAY") or ":0"
        self.use_shm = use_shm
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktopd-x11")
        self._dpy: xdisplay.Display | None = None
        self._capturer: Capturer | None = None
        self._pointer: Pointer | None = None
        self._keyboard: Keyboard | None = None
        self._windows: Windows | None = None
        self._clipboard: Clipboard | None = None
        self._xtest = False
        self._restore_timer: threading.Timer | None = None
        self._lock = threading.RLock()  # belt and braces if a caller strays off the executor
        self.last_error: str | None = None
        self.connected_at: float | None = None
        self.connects = 0

    # ---------------------------------------------------------------- connection handling
    @property
    def connected(self) -> bool:
        return self._dpy is not None and (self._capturer is None or self._capturer_alive())

    def _capturer_alive(self) -> bool:
        shm = self._capturer._shm if self._capturer is not None else None
        return shm is None or shm.alive

    def connect(self) -> None:
        with self._lock:
            if self._dpy is not None:
                return
            try:
                dpy = open_display(self.display_name)
            except DisplayUnavailable as exc:
                self.last_error = str(exc)
                raise
            try:
                # Errors of requests without replies arrive asynchronously; log, never print.
                dpy.set_error_handler(self._async_x_error)
                self._xtest = dpy.has_extension("XTEST")
                screen = dpy.screen()
                self._capturer = Capturer(dpy, self.display_name, allow_shm=self.use_shm)
                self._pointer = Pointer(dpy, screen.width_in_pixels, screen.height_in_pixels)
                self._keyboard = Keyboard(dpy)
                self._windows = Windows(dpy, on_event=self._keyboard.note_event)
            except Exception as exc:
                self._dpy = dpy
                self._drop(exc)
                if isinstance(exc, X11Error):
                    raise
                raise DisplayUnavailable(f"display {self.display_name}: {exc}") from None
            self._dpy = dpy
            self.connects += 1
            self.connected_at = time.time()
            self.last_error = None
            log.info("connected to X display %s (%dx%d, capture=%s, xtest=%s)",
                     self.display_name, screen.width_in_pixels, screen.height_in_pixels,
                     self._capturer.backend, self._xtest)

    def client_id_base(self) -> int:
        """The resource-id base of desktopd's input connection: how the X server (and RECORD)
        names this client, so captured input can be told apart from a person's."""
        return self._call(lambda: int(self._dpy.display.info.resource_id_base))

    @staticmethod
    def _async_x_error(err: xerror.XError, request: Request) -> None:
        log.debug("asynchronous X error: %s", err)

    def close(self) -> None:
        """Release held keys/buttons, restore scratch keycodes, close every connection."""
        with self._lock:
            if self._dpy is not None:
                try:
                    if self._keyboard is not None:
                        self._keyboard.release_all()
                        self._keyboard.restore_scratch()
                    if self._pointer is not None and self._pointer.held:
                        self._pointer.release_all()
                except Exception as exc:  # the server may already be gone
                    log.debug("cleanup on close failed: %s", exc)
            self._drop(None)
            if self._restore_timer is not None:
                self._restore_timer.cancel()

    def _schedule_scratch_restore(self) -> None:
        """After a quiet period, put scratch keycodes back to NoSymbol - on the executor's
        thread, like every other X call (the timer thread only submits the job)."""
        if self._keyboard is None or not self._keyboard.scratch_in_use:
            return
        if self._restore_timer is not None and self._restore_timer.is_alive():
            return  # it checks for quiet when it fires and re-arms itself if typing went on

        def submit() -> None:
            try:
                self.executor.submit(self._restore_if_quiet)
            except RuntimeError:  # executor already shut down
                pass

        self._restore_timer = threading.Timer(SCRATCH_RESTORE_AFTER_S, submit)
        self._restore_timer.daemon = True
        self._restore_timer.start()

    def _restore_if_quiet(self) -> None:
        with self._lock:
            self._restore_timer = None  # this one has fired: let a new one be armed
            keyboard = self._keyboard
            if keyboard is None:
                return
            if time.monotonic() - keyboard.last_activity < SCRATCH_RESTORE_AFTER_S * 0.9:
                self._schedule_scratch_restore()
                return
            try:
                keyboard.restore_scratch()
            except Exception as exc:
                log.debug("restoring scratch keycodes failed: %s", exc)

    def shutdown(self) -> None:
        """close() on the executor's thread, then stop the executor (for cleanup_ctx)."""
        try:
            self.executor.submit(self.close).result(timeout=10)
        except Exception as exc:
            log.warning("closing the X connections failed: %s", exc)
        self.executor.shutdown(wait=False)

    def _drop(self, cause: BaseException | None) -> None:
        if cause is not None:
            self.last_error = f"X connection lost: {type(cause).__name__}: {cause}"
            log.warning("%s (display %s)", self.last_error, self.display_name)
        for part in (self._clipboard, self._capturer):
            if part is not None:
                try:
                    part.close()
                except Exception as exc:
                    log.debug("closing %s failed: %s", type(part).__name__, exc)
        dpy, self._dpy = self._dpy, None
        if dpy is not None:
            try:
                dpy.close()
            except Exception as exc:
                log.debug("closing the display failed: %s", exc)
        self._capturer = self._pointer = self._keyboard = self._windows = self._clipboard = None
        self._xtest = False

    def ensure_connected(self) -> None:
        """Check the connection with a round trip; reconnect if the server went away."""
        with self._lock:
            if self._dpy is not None:
                try:
                    if not self._capturer_alive():
                        raise xerror.ConnectionClosedError("capture connection")
                    self._dpy.get_input_focus()
                    return
                except Exception as exc:
                    if not is_connection_loss(exc):
                        raise
                    self._drop(exc)
            self.connect()

    def _call(self, fn: Callable[[], T], *, retry: bool = False) -> T:
        """Run ``fn`` with a live connection; turn a lost server into DisplayUnavailable.

        ``retry``: for idempotent reads, one reconnect-and-retry hides a server restart."""
        with self._lock:
            for attempt in (0, 1):
                had_connection = self._dpy is not None
                self.connect()
                try:
                    # The only unsolicited events are MappingNotify: read them as they come
                    # (keeps python-xlib's queue empty and the keymap current).
                    self._keyboard.handle_events()
                    return fn()
                except DisplayUnavailable as exc:
                    self._drop(exc)
                    if retry and attempt == 0 and had_connection:
                        continue
                    raise
                except xerror.XError as exc:
                    # A protocol error the layer did not expect (BadMatch, BadAlloc...).
                    raise X11Error(f"X error: {exc}") from None
                except Exception as exc:
                    if not is_connection_loss(exc):
                        raise
                    self._drop(exc)
                    if retry and attempt == 0 and had_connection:
                        continue
                    raise DisplayUnavailable(self.last_error or str(exc)) from None
            raise AssertionError("unreachable")

    def _need_xtest(self) -> None:
        if not self._xtest:
            raise X11Error(f"display {self.display_name} has no XTEST extension; input is impossible")

    # ------------------------------------------------------------------------- screen info
    def screen_size(self) -> tuple[int, int]:
        def size() -> tuple[int, int]:
            screen = self._dpy.screen()
            return screen.width_in_pixels, screen.height_in_pixels
        return self._call(size, retry=True)

    def info(self) -> JSONObject:
        """State for /health. Never raises: a missing display is reported, not thrown."""
        try:
            self.ensure_connected()
        except X11Error as exc:
            return {"display": self.display_name, "connected": False, "connects": self.connects,
                    "last_error": str(exc)}
        base: JSONObject = {"display": self.display_name, "connects": self.connects,
                "last_error": self.last_error}
        dpy, screen = self._dpy, self._dpy.screen()
        capturer = self._capturer
        return {
            **base,
            "connected": True,
            "connected_since": self.connected_at,
            "width": screen.width_in_pixels,
            "height": screen.height_in_pixels,
            "depth": screen.root_depth,
            "extensions": {
                "XTEST": self._xtest,
                "MIT-SHM": capturer.backend == "mit-shm",
                "XFIXES": capturer.xfixes,
            },
            "capture_backend": capturer.backend,
            "window_manager": self._windows.wm_info(),
            "shm_unavailable_reason": capturer.shm_error,
            "vendor": dpy.display.info.vendor,
        }

    # ---------------------------------------------------------------------------- capture
    def capture(self, region: Region | None = None, cursor: bool = False) -> Image.Image:
        return self._call(lambda: self._capturer.capture(region, cursor), retry=True)

    def capture_raw(self, region: Region | None = None, cursor: bool = False
                    ) -> tuple[bytes, int, int]:
        return self._call(lambda: self._capturer.capture_raw(region, cursor), retry=True)

    @property
    def capture_backend(self) -> str | None:
        return self._capturer.backend if self._capturer is not None else None

    # ---------------------------------------------------------------------------- pointer
    def pointer_position(self) -> tuple[int, int]:
        return self._call(lambda: self._pointer.position(), retry=True)

    def pointer_source(self) -> str:
        return "server"   # XQueryPointer: the server's pointer, a VNC viewer's moves included

    def pointer_move(self, x: int, y: int) -> None:
        def move() -> None:
            self._need_xtest()
            self._pointer.move(int(x), int(y))
        self._call(move)

    def pointer_button(self, button: int, down: bool) -> None:
        def press() -> None:
            self._need_xtest()
            self._pointer.button(int(button), bool(down))
        self._call(press)

    def scroll(self, dx: int, dy: int) -> None:
        def wheel() -> None:
            self._need_xtest()
            self._pointer.scroll(int(dx), int(dy))
        self._call(wheel)

    # --------------------------------------------------------------------------- keyboard
    @staticmethod
    def parse_key_name(name: str) -> int:
        return parse_key_name(name)

    def keysym(self, keysym: int, down: bool) -> None:
        def press() -> None:
            self._need_xtest()
            self._keyboard.keysym(int(keysym), bool(down))
        self._call(press)
        self._schedule_scratch_restore()

    def key(self, name: str, down: bool) -> None:
        keysym = parse_key_name(name)  # ValueError before touching the display
        self.keysym(keysym, down)

    def type_text(self, text: str, delay_ms: float = 0) -> None:
        check_typing(text, delay_ms)

        def type_() -> None:
            self._need_xtest()
            self._keyboard.type_text(text, delay_ms)
        self._call(type_)
        self._schedule_scratch_restore()

    def release_all_input(self) -> None:
        """Release every key and button desktopd holds (e.g. when a client disconnects)."""
        def release() -> None:
            self._keyboard.release_all()
            if self._pointer.held:
                self._pointer.release_all()
        self._call(release)

    # ---------------------------------------------------------------------------- windows
    def windows(self) -> list[WindowInfo]:
        """Top-level windows, bottom to top (see desktopd/x11/windows.py for the fields)."""
        return self._call(lambda: self._windows.list(), retry=True)

    def window(self, window_id: int) -> WindowInfo:
        return self._call(lambda: self._windows.get(int(window_id)), retry=True)

    def window_manager(self) -> JSONObject:
        return self._call(lambda: self._windows.wm_info(), retry=True)

    def window_action(self, window_id: int, action: str, **params: float) -> WindowActionResult:
        """focus|close|move(x,y)|resize(width,height)|minimize|maximize|restore.

        Returns {"id", "action", "method" (how it was done), "window" (state afterwards) or
        "closed"}; raises WindowNotFound, ValueError naming a bad parameter."""
        def act() -> WindowActionResult:
            try:
                return self._windows.act(int(window_id), action, **params)
            except xerror.BadWindow:
                raise WindowNotFound(int(window_id)) from None
        return self._call(act)

    # -------------------------------------------------------------------------- clipboard
    def _clipboard_owner(self) -> Clipboard:
        if self._clipboard is None or not self._clipboard._thread.is_alive():
            if self._clipboard is not None:
                self._clipboard.close()
            self._clipboard = Clipboard(self.display_name)
        return self._clipboard

    def clipboard_get(self, timeout: float = 2.0) -> str | None:
        """CLIPBOARD as text; None when nobody owns it or the owner has no text."""
        if not 0 < timeout <= 30:
            raise ValueError(f"timeout: must be in (0, 30] seconds, got {timeout}")
        return self._call(lambda: self._clipboard_owner().get_text(timeout), retry=True)

    def clipboard_clear(self) -> None:
        self._call(lambda: self._clipboard_owner().clear())

    def clipboard_set(self, text: str) -> None:
        if not isinstance(text, str):
            raise ValueError(f"text: expected a string, got {type(text).__name__}")
        self._call(lambda: self._clipboard_owner().set_text(text))
