"""The one interface desktopd's handlers drive a desktop through, and the choice of backend.

Two backends implement it: X11 (desktopd/x11/desktop.py: Xvfb, XTEST, MIT-SHM) and Sway
(desktopd/sway/desktop.py: Wayland protocols and Sway's IPC). Neither knows the other; handlers
know only this module's ``Backend``. What a backend cannot do raises ``Unsupported``, which the
HTTP layer answers with 501 naming the backend."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from desktopd.settle.changes import SourceOpener
from desktopd_contract.windows import WindowActionResult, WindowInfo
from httpapi.json_types import JSONObject

Region = tuple[int, int, int, int]
BACKENDS = ("x11", "sway")
# What a backend's pointer_position is: read from the display server, or only what desktopd knows.
POINTER_SOURCES = {
    "server": "read from the display server: where the pointer is, whoever moved it",
    "last_set": "where desktopd last moved it: the compositor lets no client read the pointer, so a "
                "move made through VNC or by another client is not seen",
    "assumed": "desktopd has not moved the pointer since it connected and cannot read it: the "
               "screen's centre is assumed",
}
POINTER_SOURCE_SCHEMA = {"enum": list(POINTER_SOURCES), "description": "Where the position comes from: " + "; ".join(
    f"{name}: {meaning}" for name, meaning in POINTER_SOURCES.items()) + "."}


class Unsupported(Exception):
    """A feature this backend does not have (HTTP 501)."""

    def __init__(self, backend: str, feature: str) -> None:
        super().__init__(f"{feature} is not available on the {backend} backend")
        self.backend = backend
        self.feature = feature


class Backend(Protocol):
    """What the handlers call, always on ``executor`` (one thread: input stays in order)."""

    @property
    def executor(self) -> concurrent.futures.Executor: ...

    @property
    def atspi_extents(self) -> str:
        """The space applications report AT-SPI extents in: "screen" or "window" (relative to
        their window; desktopd/accessibility/placement.py places them)."""

    def ensure_connected(self) -> None: ...
    def close(self) -> None: ...
    def screen_size(self) -> tuple[int, int]: ...
    def info(self) -> JSONObject: ...
    def capture(self, region: Region | None = None, cursor: bool = False) -> Image.Image: ...
    def capture_raw(self, region: Region | None = None, cursor: bool = False) -> tuple[bytes, int, int]: ...
    def pointer_position(self) -> tuple[int, int]: ...

    def pointer_source(self) -> str:
        """Where pointer_position comes from (POINTER_SOURCES)."""

    def pointer_move(self, x: int, y: int) -> None: ...
    def pointer_button(self, button: int, down: bool) -> None: ...
    def scroll(self, dx: int, dy: int) -> None: ...
    def parse_key_name(self, name: str) -> int: ...
    def keysym(self, keysym: int, down: bool) -> None: ...
    def key(self, name: str, down: bool) -> None: ...
    def type_text(self, text: str, delay_ms: float = 0) -> None: ...
    def release_all_input(self) -> None: ...

    def windows(self) -> Sequence[WindowInfo]:
        """Top-level windows, bottom to top. A Sequence: a backend may describe more (Sway's
        SwayWindowInfo), and its list of those is not a list[WindowInfo]."""

    def window(self, window_id: int) -> WindowInfo: ...
    def window_manager(self) -> JSONObject: ...
    def window_action(self, window_id: int, action: str, **params: float) -> WindowActionResult: ...
    def clipboard_get(self, timeout: float = 2.0) -> str | None: ...
    def clipboard_set(self, text: str) -> None: ...
    def clipboard_clear(self) -> None: ...


@dataclass(frozen=True)
class BackendErrors:
    """A backend's exception types: display gone (503), no such window (404), other (500)."""

    unavailable: type[BaseException]
    window_not_found: type[BaseException]
    backend_error: type[BaseException]


def check_region(region: Region | None, width: int, height: int) -> Region:
    """The region as integers, or the whole screen; ValueError naming ``region`` when it is
    empty or reaches outside the screen."""
    if region is None:
        return (0, 0, width, height)
    x, y, w, h = (int(v) for v in region)
    if w <= 0 or h <= 0:
        raise ValueError(f"region: width and height must be positive, got {w}x{h}")
    if x < 0 or y < 0 or x + w > width or y + h > height:
        raise ValueError(f"region: ({x},{y},{w},{h}) is outside the {width}x{height} screen")
    return (x, y, w, h)


def check_typing(text: object, delay_ms: float) -> None:
    """type_text's arguments, checked before any key goes out (ValueError naming the field)."""
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {type(text).__name__}")
    if delay_ms < 0:
        raise ValueError(f"delay_ms: must be >= 0, got {delay_ms}")


def backend_errors(name: str) -> BackendErrors:
    if name == "sway":
        from desktopd.sway.desktop import CompositorUnavailable, SwayError, WindowNotFound
        return BackendErrors(CompositorUnavailable, WindowNotFound, SwayError)
    if name == "x11":
        from desktopd.x11.desktop import DisplayUnavailable, X11Error
        from desktopd.x11.desktop import WindowNotFound as XWindowNotFound
        return BackendErrors(DisplayUnavailable, XWindowNotFound, X11Error)
    raise ValueError(f"backend: one of {', '.join(BACKENDS)}, got {name!r}")


def open_backend(name: str, display: str) -> Backend:
    """The backend called ``name`` for ``display`` (an X display, or a Wayland socket name);
    it connects lazily, on its executor."""
    if name == "sway":
        from desktopd.sway.desktop import SwayDesktop
        return SwayDesktop(display)
    if name == "x11":
        from desktopd.x11.desktop import X11Desktop
        return X11Desktop(display=display)
    raise ValueError(f"backend: one of {', '.join(BACKENDS)}, got {name!r}")


def change_source_opener(name: str) -> SourceOpener:
    """How the settle (desktopd/settle/settler.py) watches backend ``name``'s screen for changes: X11's
    DAMAGE, or Sway's screencopy damage; either opens on the backend's display."""
    if name == "sway":
        from desktopd.sway.damage import open_watcher as open_sway_watcher
        return open_sway_watcher
    if name == "x11":
        from desktopd.x11.damage import open_watcher
        return open_watcher
    raise ValueError(f"backend: one of {', '.join(BACKENDS)}, got {name!r}")
