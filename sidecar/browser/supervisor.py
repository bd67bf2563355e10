"""Keep one Chromium running and connected: launch, connect, follow targets, restart on death.

The supervisor owns the Chromium process and at most one ChromiumConnection (the CDP connection
with everything made on it: chromium_connection.py). When the process dies it is relaunched with exponential backoff (``restarts`` counts it) and the start URLs
are opened again; when only the socket drops, it reconnects to the same browser first
(``reconnects``). HTTP handlers ask ``current()`` for the live connection once and get
``ChromiumUnavailable`` (a 503) meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from httpapi.bounded import within

from ..cdp.connection import CDPError
from ..errors import ChromiumUnavailable
from ..cdp.protocol.cdp_commands import BrowserGetVersionResult
from ..cdp.protocol.cdp_types import BrowserBounds
from ..cdp.targets import PageTarget, WindowBounds
from ..layout.geometry.spaces import chromium_on_wayland
from .chromium_connection import ChromiumConnection
from .compositor_window import SwayWindowCheck
from .episode_context import close_previous, empty_directory, open_episode
from .launcher import ChromiumProcess, LaunchError, launch
from .graceful import close_gracefully
from ..state.profiles import Profile, ProfileStore
from ..state.throwaway_dirs import new_throwaway_profile, remove_stale_throwaway_dirs
from .window_geometry import default_window_size

if TYPE_CHECKING:   # the settings module reads browser defaults: a type-only import back
    from ..settings import Settings

log = logging.getLogger(__name__)

HEADLESS_WINDOW = (1280, 800)
RECONNECT_ATTEMPTS = 3
# Chromium's window flags and bounds are in device-independent pixels: screen pixels / scale.
WINDOW_SPACE = "screen (device-independent pixels)"


class RequestedWindow(WindowBounds):
    """The window the browser is asked for, as /health reports it."""

    space: str


class ActualWindow(TypedDict):
    """Where Chromium says the window is (DIP), as /health reports it."""

    x: int | None
    y: int | None
    width: int | None
    height: int | None
    state: str | None
    space: str


# A Chromium that stayed up this long resets the restart backoff.
STABLE_AFTER_S = 60.0


@dataclass(frozen=True)
class ResetOutcome:
    """How a reset made the new episode: ``how`` is "context" (a new browser context in the
    running Chromium; ``pages`` are its tabs, loading; ``closing`` ends the previous episode
    meanwhile and adds its part to ``timings``) or "process" (a new Chromium is launching;
    ``pages`` None), with seconds per part so far."""

    how: str
    timings: dict[str, float]
    pages: list[PageTarget] | None
    closing: asyncio.Task[None] | None = None


class ChromiumSupervisor:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.chromium: ChromiumProcess | None = None
        self.live: ChromiumConnection | None = None
        self.version: BrowserGetVersionResult | None = None    # the last connection's, kept while restarting
        self.window_size: tuple[int, int] | None = None
        self.restarts = 0
        self.reconnects = 0
        self.last_error: str | None = None
        self._failed_once = False
        self._ever_ok = False
        # The user-data dir Chromium runs on: a throwaway one, or a named profile it leased.
        self.profiles = ProfileStore(settings.profiles_dir)
        self.profile: Profile | None = None
        self._task: asyncio.Task | None = None
        self._state_changed = asyncio.Event()
        # What a (re)launch opens: the configured URLs until a reset names others.
        self.start_urls: tuple[str, ...] = tuple(settings.urls)
        self._reset_lock = asyncio.Lock()
        # The running episode's browser context (episode_context.py); None: the default one.
        self.episode_context: str | None = None
        # The throwaway profile served an episode before a context reset: a relaunch (after a
        # crash) gets a fresh one rather than the first episode's cookies and storage.
        self._throwaway_spent = False

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Begin launching in the background; returns at once (health says ``starting``)."""
        remove_stale_throwaway_dirs()
        self.profile = new_throwaway_profile()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        await self._stop_browser()
        if self.profile is not None:
            self.profile.release()
            self.profile = None

    async def reset(self, urls: tuple[str, ...], profile: str | None = None,
                    isolation: str = "context") -> ResetOutcome:
        """A fresh episode on ``urls`` (which later restarts open too).

        On a fresh profile (``profile`` None) with ``isolation="context"`` the running Chromium
        opens them in a new browser context's window and drops the previous episode's context
        (episode_context.py): no launch. Otherwise (a named ``profile``, ``isolation="process"``,
        kiosk or app windows, no browser up) a new Chromium starts on a FRESH throwaway profile
        or on the named ``profile`` as its last browser left it; that returns once it is
        launching, and wait_until("ok") follows. A profile another browser holds raises
        ProfileInUse before anything stops."""
        async with self._reset_lock:
            if profile is None and isolation == "context" and self._context_reset_possible():
                try:
                    return await self._reset_in_new_context(urls)
                except CDPError as exc:
                    log.warning("a reset in a new browser context failed (%s); relaunching", exc)
            return await self._reset_by_relaunch(urls, profile)

    def _context_reset_possible(self) -> bool:
        live = self.live
        return (live is not None and live.connected and self.profile is not None
                and self.profile.name is None and not self.settings.kiosk and not self.settings.app_mode)

    async def _reset_in_new_context(self, urls: tuple[str, ...]) -> ResetOutcome:
        live = self.current()
        timeout = self.settings.cdp_timeout
        previous_context, previous_pages = self.episode_context, live.tracker.pages()
        context_id, timings = await open_episode(live.conn, live.tracker, urls, self._window(),
                                                 self.settings.downloads_dir, timeout)
        self.episode_context = live.tracker.browser_context_id = context_id
        self._throwaway_spent = True
        self.start_urls = tuple(urls)

        async def end_previous() -> None:
            since = time.monotonic()
            await close_previous(live.tracker, previous_context, previous_pages, timeout)
            live.agent.downloads.clear()
            empty_directory(self.settings.downloads_dir)
            timings.lap("close_previous", since)

        # The previous episode closes while the new one loads; the answer waits for both.
        closing = asyncio.get_running_loop().create_task(end_previous())
        pages = [live.tracker.find_page(target_id) for target_id in timings.target_ids]
        return ResetOutcome("context", timings.parts, [page for page in pages if page is not None], closing)

    async def _reset_by_relaunch(self, urls: tuple[str, ...], profile: str | None) -> ResetOutcome:
        started = time.monotonic()
        current = self.profile
        if profile is None:
            lease: Profile = new_throwaway_profile()
        elif current is not None and current.name == profile:
            lease = current          # its lock is ours already
        else:
            lease = self.profiles.lease(profile)
        try:
            await self._stop_browser()
        except BaseException:
            if lease is not current:
                lease.release()      # never hold a profile no browser runs on
            raise
        if current is not None and current is not lease:
            current.release()
        self.profile = lease
        self._throwaway_spent = False
        self.episode_context = None
        self.start_urls = tuple(urls)
        self._task = asyncio.get_running_loop().create_task(self._run())
        return ResetOutcome("process", {"stop": round(time.monotonic() - started, 4)}, None)

    async def _stop_browser(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self.profile is not None and self.profile.name is not None:
            await close_gracefully(self.live.conn if self.live is not None else None, self.chromium,
                                   self.settings.cdp_timeout)
        await self._teardown()

    # -- what the HTTP layer sees --------------------------------------------------------------

    @property
    def status(self) -> str:
        live = self.live
        if live is not None and live.connected and live.tracker.pages():
            self._ever_ok = True
            # A tab whose renderer crashed is a fault health must show until it is reloaded.
            return "degraded" if any(page.crashed for page in live.tracker.pages()) else "ok"
        if not self._ever_ok and not self._failed_once:
            return "starting"
        return "degraded"

    def current(self) -> ChromiumConnection:
        """The live connection with all its parts, or ChromiumUnavailable saying why not."""
        live = self.live
        if live is None or not live.connected:
            why = "Chromium is starting" if self.status == "starting" else (
                f"Chromium is restarting (last error: {self.last_error})")
            raise ChromiumUnavailable(why)
        return live

    async def health(self) -> dict[str, object]:
        """``health_snapshot()`` plus the browser window's actual bounds, asked from Chromium."""
        body = self.health_snapshot()
        body["window"] = {"requested": self._window(), "actual": await self._actual_window()}
        return body

    async def _actual_window(self) -> ActualWindow | None:
        """Where the first tab's window really is (Chromium may shrink a screen-sized window by
        a pixel, and a window manager may move it). CSS/DIP pixels: screen pixels / DPR."""
        live = self.live
        if live is None or not live.connected or not live.tracker.pages():
            return None
        try:
            reply = await live.conn.send("Browser.getWindowForTarget",
                                         {"targetId": live.tracker.pages()[0].target_id}, timeout=2.0)
        except CDPError:
            return None
        bounds: BrowserBounds = reply.get("bounds", {})
        return {"x": bounds.get("left"), "y": bounds.get("top"), "width": bounds.get("width"),
                "height": bounds.get("height"), "state": bounds.get("windowState"),
                "space": WINDOW_SPACE}

    def health_snapshot(self) -> dict[str, object]:
        chromium, live = self.chromium, self.live
        body: dict[str, object] = {
            "status": self.status,
            "pid": chromium.pid if chromium is not None and chromium.returncode is None else None,
            "version": self.version.get("product") if self.version else None,
            "user_agent": self.version.get("userAgent") if self.version else None,
            "protocol_version": self.version.get("protocolVersion") if self.version else None,
            "cdp_connected": bool(live is not None and live.connected),
            "tabs": len(live.tracker.pages()) if live is not None else 0,
            "restarts": self.restarts,
            "reconnects": self.reconnects,
            "last_error": self.last_error,
            "headless": self.settings.headless,
            "profile": self.profile.name if self.profile is not None else None,
        }
        if live is not None:
            body["crashed_tabs"] = [page.target_id for page in live.tracker.pages() if page.crashed]
            body["unresponsive_tabs"] = live.tab_health.unresponsive_tabs()
            counts = live.recovery.counts
            body["tab_crashes"] = {"crashes": counts.crashes, "reloads": counts.reloads,
                                   "failed_reloads": counts.failed, "gave_up": sorted(counts.gave_up),
                                   "recovery": live.recovery.enabled}
            body["cdp_stats"] = live.conn.stats()
        if self.settings.cdp_port and chromium is not None:
            body["cdp_url"] = chromium.ws_url
        return body

    def _window(self) -> RequestedWindow | None:
        if self.window_size is None:
            return None
        x, y = self.settings.window_position
        return {"x": x, "y": y, "width": self.window_size[0], "height": self.window_size[1],
                "space": WINDOW_SPACE}

    async def wait_until(self, status: str, timeout: float) -> None:
        """Wait for ``status`` (tests, startup logging); TimeoutError otherwise."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.status != status:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"status is {self.status!r}, not {status!r}, after {timeout} s "
                                   f"(last error: {self.last_error})")
            event = self._state_changed
            try:
                # Tab changes do not signal this event: re-check at least every half second.
                await within(event.wait(), min(remaining, 0.5))
            except asyncio.TimeoutError:
                pass

    def _signal(self) -> None:
        self._state_changed.set()
        self._state_changed = asyncio.Event()

    # -- the supervision loop ------------------------------------------------------------------

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        delay = self.settings.restart_backoff
        while True:
            started = loop.time()
            try:
                await self._launch()
                await self._connect()
                await self._open_other_start_urls()
                await self._log_ready()
                reason = await self._watch()
            except (LaunchError, CDPError, OSError) as exc:
                reason = f"{type(exc).__name__}: {exc}"
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the watcher must survive anything
                log.exception("unexpected error supervising Chromium")
                reason = f"{type(exc).__name__}: {exc}"
            self.last_error = reason
            self._failed_once = True
            await self._teardown()
            self._signal()
            if loop.time() - started > STABLE_AFTER_S:
                delay = self.settings.restart_backoff
            log.warning("Chromium is down (%s); restarting in %.1f s", reason, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.settings.restart_backoff_max)
            self.restarts += 1

    async def _launch(self) -> None:
        if self.profile is None:
            raise LaunchError("the supervisor was not started")
        if self._throwaway_spent and self.profile.name is None:
            self.profile.release()
            self.profile = new_throwaway_profile()
            self._throwaway_spent = False
        self.episode_context = None      # a new browser has only its default context
        if self.window_size is None:
            # Asked at each launch until known: the display may come up after the sidecar.
            self.window_size = await self._resolve_window_size()
        first_url = self.start_urls[0] if self.start_urls else None
        self.chromium = await launch(self.settings.launch_options(self.window_size),
                                     self.profile.path, first_url)

    async def _connect(self) -> None:
        chromium = self.chromium
        if chromium is None:
            raise LaunchError("no Chromium to connect to")
        # On Wayland the screen bounds hold only once Chromium has taken Sway's window.
        window_check = SwayWindowCheck(lambda: chromium.pid) \
            if chromium_on_wayland(" ".join(self.settings.chromium_flags)) else None
        live = await ChromiumConnection.open(chromium.ws_url, self.settings, window_check)
        live.tracker.browser_context_id = self.episode_context   # kept across a reconnect
        self.live, self.version = live, live.version
        self._signal()
        log.info("connected to %s (pid %d)", live.version.get("product"), chromium.pid)

    async def _open_other_start_urls(self) -> None:
        """The first URL is on the command line; the rest become tabs behind it, in order."""
        live = self.current()
        if len(self.start_urls) < 2:
            return
        # Wait for the first tab, so the others are created (and ordered) after it.
        await live.tracker.wait_for(lambda: bool(live.tracker.pages()), self.settings.cdp_timeout)
        for url in self.start_urls[1:]:
            await live.tracker.open_tab(url, background=True, timeout=self.settings.cdp_timeout)

    async def _log_ready(self) -> None:
        """Log once the first tab is attached: scripts and tests wait for this line."""
        tracker = self.current().tracker
        await tracker.wait_for(lambda: bool(tracker.pages()), self.settings.cdp_timeout)
        self._signal()
        log.info("Chromium ready: pid %d, %d tab(s), restarts %d", self.chromium.pid if self.chromium
                 else -1, len(tracker.pages()), self.restarts)

    async def _watch(self) -> str:
        """Return why Chromium is no longer usable; reconnect on a mere socket drop."""
        chromium = self.chromium
        if chromium is None:
            return "no Chromium process"
        exited = asyncio.ensure_future(chromium.wait())
        try:
            while True:
                live = self.live
                if live is None:
                    return "no CDP connection"
                closed = asyncio.ensure_future(live.conn.wait_closed())
                done, _ = await asyncio.wait({exited, closed}, return_when=asyncio.FIRST_COMPLETED)
                if exited not in done:
                    # A dying browser drops the socket a moment before it is reaped: give the
                    # exit a second to show before treating this as a transient socket loss.
                    await asyncio.wait({exited}, timeout=1.0)
                if exited.done():
                    closed.cancel()
                    return self._exit_reason(chromium, exited.result())
                why = closed.result()
                log.warning("CDP connection lost while Chromium lives (%s); reconnecting", why)
                await self._drop_connection()
                if not await self._reconnect(exited):
                    if exited.done():
                        return self._exit_reason(chromium, exited.result())
                    return f"CDP connection lost ({why}) and reconnecting failed"
        finally:
            exited.cancel()

    @staticmethod
    def _exit_reason(chromium: ChromiumProcess, code: int) -> str:
        tail = chromium.recent_stderr(3)
        how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return f"Chromium {how}" + (f"; stderr: {tail}" if tail else "")

    async def _reconnect(self, exited: asyncio.Future) -> bool:
        for attempt in range(RECONNECT_ATTEMPTS):
            await asyncio.sleep(0.25 * 2 ** attempt)
            if exited.done():
                return False
            try:
                await self._connect()
            except CDPError as exc:
                self.last_error = f"reconnect failed: {exc}"
                continue
            self.reconnects += 1
            return True
        return False

    async def _drop_connection(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            await live.close()
        self._signal()

    async def _teardown(self) -> None:
        await self._drop_connection()
        chromium, self.chromium = self.chromium, None
        if chromium is not None:
            await chromium.stop()

    async def _resolve_window_size(self) -> tuple[int, int] | None:
        if self.settings.window_size is not None:
            return self.settings.window_size
        if self.settings.headless:
            return HEADLESS_WINDOW
        display = self.settings.display or ""
        try:
            size = await asyncio.get_running_loop().run_in_executor(None, _display_size, display)
            # The window flags are DIP: the display's pixels divided by the scale factor.
            return default_window_size(size, self.settings.chromium_flags)
        except Exception as exc:  # noqa: BLE001 - Xlib raises several unrelated types
            log.warning("cannot read the size of display %s (%s); Chromium picks its own", display, exc)
            return None


def _display_size(display: str) -> tuple[int, int]:
    """The root window's size in pixels (blocking: run in an executor)."""
    from Xlib import display as xdisplay

    connection = xdisplay.Display(display)
    try:
        screen = connection.screen()
        return screen.width_in_pixels, screen.height_in_pixels
    finally:
        connection.close()
