"""A fake X layer for unit tests of the HTTP layer only (integration tests use the real one).

It follows docs/contracts.md: same method names, blocking, used from one executor."""

from __future__ import annotations

import concurrent.futures
from typing import Any

from PIL import Image

from desktopd.settle.settler import Settler
from desktopd.backend.service import BackendErrors

KNOWN_KEYS = {"ctrl", "shift", "alt", "super", "Return", "BackSpace", "Tab", "plus", "F5",
              "KP_Enter", "Escape", *"abcdefghijklmnopqrstuvwxyz0123456789"}


class FakeX11Error(Exception):
    pass


class FakeUnavailable(FakeX11Error):
    pass


class FakeWindowNotFound(FakeX11Error):
    pass


FAKE_ERRORS = BackendErrors(FakeUnavailable, FakeWindowNotFound, FakeX11Error)


class FakeDesktop:
    def __init__(self, display: str, width: int = 1280, height: int = 800) -> None:
        self.display = display
        self.size = (width, height)
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self.calls: list[tuple[Any, ...]] = []
        self.down = False            # set True to simulate a dead X server
        self.position = (0, 0)
        self.clipboard: str | None = None
        # What info() reports of a window manager (as the X11 backend does); None: nothing.
        self.window_manager: dict[str, Any] | None = None
        self.window_ids = {0x400001}
        self.fail_key: str | None = None  # key() raises FakeX11Error for this name

    def connect(self) -> None:
        self.ensure_connected()

    def ensure_connected(self) -> None:
        if self.down:
            raise FakeUnavailable(f"cannot open display {self.display}")

    def close(self) -> None:
        self.calls.append(("close",))

    @property
    def connected(self) -> bool:
        return not self.down

    def screen_size(self) -> tuple[int, int]:
        return self.size

    def info(self) -> dict[str, Any]:
        info = {"display": self.display, "connected": True, "width": self.size[0],
                "height": self.size[1], "depth": 24, "capture_backend": "fake"}
        if self.window_manager is not None:
            info["window_manager"] = dict(self.window_manager)
        return info

    def capture(self, region=None, cursor=False) -> Image.Image:
        w, h = (region[2], region[3]) if region else self.size
        self.calls.append(("capture", region, cursor))
        return Image.new("RGB", (w, h), (10, 20, 30))

    def capture_raw(self, region=None, cursor=False) -> tuple[bytes, int, int]:
        w, h = (region[2], region[3]) if region else self.size
        self.calls.append(("capture_raw", region, cursor))
        return bytes([30, 20, 10, 0]) * (w * h), w, h

    def pointer_position(self) -> tuple[int, int]:
        return self.position

    def pointer_source(self) -> str:
        return "server"

    def pointer_move(self, x: int, y: int) -> None:
        self.calls.append(("move", x, y))
        self.position = (x, y)

    def pointer_button(self, button: int, down: bool) -> None:
        self.calls.append(("button", button, down))

    def scroll(self, dx: int, dy: int) -> None:
        self.calls.append(("scroll", dx, dy))

    def parse_key_name(self, name: str) -> int:
        if name not in KNOWN_KEYS and len(name) != 1:
            raise ValueError(f"unknown key name {name!r}")
        return 1

    def key(self, name: str, down: bool) -> None:
        self.parse_key_name(name)
        if name == self.fail_key and down:
            raise FakeX11Error(f"cannot press {name}")
        self.calls.append(("key", name, down))

    def keysym(self, keysym: int, down: bool) -> None:
        self.calls.append(("keysym", keysym, down))

    def type_text(self, text: str, delay_ms: float = 0) -> None:
        self.calls.append(("type", text))

    def windows(self) -> list[dict[str, Any]]:
        return [{"id": wid, "title": "fake"} for wid in sorted(self.window_ids)]

    def window(self, window_id: int) -> dict[str, Any]:
        if window_id not in self.window_ids:
            raise FakeWindowNotFound(f"no window with id {window_id:#x}")
        return {"id": window_id, "title": "fake"}

    def window_action(self, window_id: int, action: str, **params: Any) -> dict[str, Any]:
        if window_id not in self.window_ids:
            raise FakeWindowNotFound(f"no window with id {window_id:#x}")
        self.calls.append(("window", window_id, action, params))
        return {}

    def clipboard_get(self, timeout: float = 2.0) -> str | None:
        return self.clipboard

    def clipboard_set(self, text: str) -> None:
        self.clipboard = text


def _no_damage(display: str):
    raise FakeUnavailable(f"no X server behind the fake display {display}")


def unwatched_settler(display: str) -> Settler:
    """A Settler that has no damage evidence (the fake desktop draws nothing): it reports
    "unobserved" and pauses the quiet window, as desktopd does without a display."""
    return Settler(display, opener=_no_damage)
