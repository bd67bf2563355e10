"""The HTTP layer's one door to the desktop backend (desktopd/backend/protocol.py: X11 or Sway).

Every X call runs on the Desktop's single-thread executor (Xlib is not thread-safe; one worker
also keeps input events in order), reconnects first when the display went away, and turns the X
layer's exceptions into the API's JSON errors: DisplayUnavailable -> 503, WindowNotFound -> 404,
ValueError -> 422 naming the field the caller says it came from, Unsupported -> 501 naming the
backend. (The names say X: the X11 backend came first; the Sway backend runs through the same.)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

from desktopd.backend.protocol import Backend, BackendErrors, Unsupported, backend_errors
from httpapi.bounded import within
from httpapi.errors import ApiError, invalid, not_found, unavailable
from httpapi.json_types import JSONObject

log = logging.getLogger(__name__)
T = TypeVar("T")
Args = TypeVarTuple("Args")

# No single X request should take this long; a wedged X server must not hang a request forever.
CALL_TIMEOUT = 60.0


# The backend's exception types (injected so unit tests can use a fake desktop).
BackendErrors = BackendErrors


def real_x_errors() -> BackendErrors:
    return backend_errors("x11")


def not_supported(exc: Unsupported) -> ApiError:
    return ApiError(501, "not_supported", str(exc), extra={"backend": exc.backend, "feature": exc.feature})


class BackendService:
    def __init__(self, desktop: Backend, errors: BackendErrors, display: str) -> None:
        self.desktop = desktop
        self.errors = errors
        self.display = display
        # "x11" or "sway" (a fake desktop in unit tests says none: it stands in for X11).
        self.backend: str = getattr(desktop, "backend", "x11")
        # Where the backend's applications report AT-SPI extents (desktopd/accessibility/placement.py).
        self.atspi_extents: str = getattr(desktop, "atspi_extents", "screen")
        executor = getattr(desktop, "executor", None)
        self.executor: concurrent.futures.Executor = executor or concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="desktopd-x11")
        self.connected = False
        self.last_error: str | None = None
        self.state_since = time.time()
        self.screen: tuple[int, int] | None = None
        self._connects: int | None = None

    # -- state bookkeeping (called on the X thread, read on the loop: plain attribute writes) --
    def _mark(self, connected: bool, error: str | None = None) -> None:
        if connected != self.connected:
            self.state_since = time.time()
            if connected:
                log.info("X display %s connected", self.display)
            else:
                log.warning("X display %s unavailable: %s", self.display, error)
        self.connected = connected
        self.last_error = error

    def _run(self, fn: Callable[[Backend, *Args], T], args: tuple[*Args]) -> T:
        """On the X thread: make sure the display is there, then do the work."""
        was_connected = self.connected
        try:
            self.desktop.ensure_connected()
            # A server that restarted between two requests may have another size: re-read it
            # after every new connection (the X layer counts them).
            connects = getattr(self.desktop, "connects", None)
            if not was_connected or self.screen is None or connects != self._connects:
                width, height = self.desktop.screen_size()
                self.screen = (width, height)
                self._connects = connects
            self._mark(True)
            return fn(self.desktop, *args)
        except self.errors.unavailable as exc:
            self._mark(False, str(exc) or type(exc).__name__)
            raise

    async def call(self, fn: Callable[[Backend, *Args], T], *args: *Args, field: str | None = None,
                   timeout: float = CALL_TIMEOUT) -> T:
        """Run ``fn(desktop, *args)`` on the X thread; raise ApiError on failure."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor, self._run, fn, args)
        try:
            return await within(future, timeout)
        except asyncio.TimeoutError:
            raise unavailable(f"the X server did not answer within {timeout:g} s",
                              retry_after=5) from None
        except ApiError:
            raise
        except Unsupported as exc:
            raise not_supported(exc) from None
        except self.errors.unavailable as exc:
            raise unavailable(f"X display {self.display} is not available: {exc}",
                              retry_after=1) from None
        except self.errors.window_not_found as exc:
            raise not_found(str(exc) or "no such window") from None
        except ValueError as exc:
            raise invalid(field or "body", str(exc)) from None
        except self.errors.backend_error as exc:
            if not self.connected:
                raise unavailable(f"X display {self.display} went away: {exc}", retry_after=1) from None
            raise ApiError(500, f"{self.backend}_error", f"{type(exc).__name__}: {exc}") from None

    def require(self, backend: str, feature: str) -> None:
        """A feature only ``backend`` has: 501 naming this backend on the others."""
        if self.backend != backend:
            raise not_supported(Unsupported(self.backend, feature))

    async def screen_size(self) -> tuple[int, int]:
        if self.screen is not None and self.connected:
            return self.screen
        # _run reads the size right after (re)connecting, before it calls this function.
        return await self.call(lambda desk: self.screen or desk.screen_size())

    async def probe(self, timeout: float = 5.0) -> JSONObject | None:
        """For /health: connect if needed and describe the display; None while it is unavailable."""
        try:
            return await self.call(lambda desk: desk.info(), timeout=timeout)
        except ApiError:
            return None

    async def start(self) -> None:
        """First connection attempt; the service starts anyway when the display is not up yet."""
        info = await self.probe()
        if info is None:
            log.warning("starting without X display %s (%s); will reconnect on demand",
                        self.display, self.last_error)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await within(loop.run_in_executor(self.executor, self.desktop.close), 10)
        except Exception as exc:  # shutting down: log, never block the exit
            log.warning("closing the X connection failed: %s", exc)
        self.executor.shutdown(wait=False)  # the service owns the X thread's lifetime
