"""The demonstration running on this desktop (at most one): its input capture, the actions its
events became, kept in a bounded buffer numbered from 1, and the clients following them."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
import uuid
from collections.abc import Callable

from desktopd.x11.errors import DisplayUnavailable, X11Error
from httpapi.api_error import ApiError, not_found, unavailable

from .capture import InputCapture
from .coalesce import Coalescer, InputEvent, Timing

log = logging.getLogger(__name__)
KEPT_ACTIONS = 10_000    # a follower that falls further behind than this misses the oldest
MAX_PLAUSIBLE_LAG_MS = 60_000


class Demonstration:
    def __init__(self, max_seconds: float, timing: Timing) -> None:
        self.id = uuid.uuid4().hex
        self.started_at, self.started_monotonic = time.time(), time.monotonic()
        self.max_seconds = max_seconds
        self.coalescer = Coalescer(timing)
        self.actions: collections.deque[dict] = collections.deque(maxlen=KEPT_ACTIONS)
        self.count = 0
        self.by_source = {"person": 0, "agent": 0}
        self.events = 0
        self.ended_at: float | None = None
        self.end_reason: str | None = None
        self.changed = asyncio.Condition()
        self._loop = asyncio.get_running_loop()
        self._offset: float | None = None   # loop time - server time (s): X time is CLOCK_MONOTONIC in ms
        self._flush_timer: asyncio.TimerHandle | None = None
        self.capture: InputCapture | None = None
        self.capture_lag_ms: int | None = None
        self.last_event_loop: float | None = None   # loop time of the last device event read

    @property
    def running(self) -> bool:
        return self.ended_at is None

    def describe(self) -> dict:
        return {"id": self.id, "started_at": self.started_at, "started_monotonic": self.started_monotonic,
                "max_seconds": self.max_seconds, "running": self.running, "actions": self.count,
                "by_source": dict(self.by_source), "events": self.events, "ended_at": self.ended_at,
                "end_reason": self.end_reason}

    # -- called on the loop (the capture thread hands events over with call_soon_threadsafe) --
    def on_event(self, event: InputEvent, received_wall: float, received_loop: float) -> None:
        if not self.running:
            return
        self.events += 1
        self.last_event_loop = received_loop
        self._offset = received_loop - event.time_ms / 1000.0
        # X servers on Linux stamp events with CLOCK_MONOTONIC in ms (32 bits), the loop's clock:
        # how long the event took to reach desktopd (None where the server's clock is another).
        lag = (int(received_loop * 1000) - event.time_ms) % (1 << 32)
        self.capture_lag_ms = lag if lag < MAX_PLAUSIBLE_LAG_MS else None
        self._publish(self.coalescer.feed(event), received_wall, received_loop)
        self._arm_flush()

    def _arm_flush(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        deadline = self.coalescer.deadline_ms()
        if deadline is not None and self._offset is not None:
            self._flush_timer = self._loop.call_at(self._offset + deadline / 1000.0 + 0.001, self._flush_due)

    def _flush_due(self) -> None:
        self._flush_timer = None
        if self._offset is None or not self.running:
            return
        now = self._loop.time()
        self._publish(self.coalescer.flush(int((now - self._offset) * 1000)), time.time(), now)
        self._arm_flush()

    def _publish(self, finished: list[dict], wall: float, loop_now: float) -> None:
        for action in finished:
            self.count += 1
            self.by_source[action["source"]] += 1
            # The wall time of the action's last event: now, less how long ago the server stamped it.
            ago = max(0.0, loop_now - ((self._offset or loop_now) + action["end_ms"] / 1000.0))
            self.actions.append({"seq": self.count, **action, "end_wall": wall - ago,
                                 "published_wall": wall, "capture_lag_ms": self.capture_lag_ms,
                                 "pointer": dict(zip("xy", self.coalescer.pointer))})
        if finished:
            self._notify()

    def _notify(self) -> None:
        async def wake() -> None:
            async with self.changed:
                self.changed.notify_all()
        self._loop.create_task(wake())

    def end(self, reason: str | None) -> None:
        """Finishes what is pending and ends (reason: why, when it was not a stop)."""
        if not self.running:
            return
        if self._flush_timer is not None:
            self._flush_timer.cancel()
        self._publish(self.coalescer.flush(None), time.time(), self._loop.time())
        self.ended_at, self.end_reason = time.time(), reason
        self._notify()

    def activity(self) -> dict:
        """For a follower between actions: whether input is still becoming an action (a click
        that may be doubled, text being typed) and how long since the last event (motion too)."""
        idle = None if self.last_event_loop is None else round((self._loop.time() - self.last_event_loop) * 1000)
        return {"pending": self.coalescer.deadline_ms() is not None, "idle_ms": idle}

    def since(self, seq: int) -> list[dict]:
        return [a for a in self.actions if a["seq"] > seq]


class Demonstrations:
    """At most one demonstration at a time; the last one stays readable after it ended."""

    def __init__(self, display: str, opener: Callable[..., InputCapture] = InputCapture) -> None:
        self.display = display
        self._open = opener
        self.current: Demonstration | None = None
        self._lock = asyncio.Lock()
        self._limit_timer: asyncio.TimerHandle | None = None

    async def start(self, own_id_bases: frozenset[int], max_seconds: float, timing: Timing) -> Demonstration:
        async with self._lock:
            if self.current is not None and self.current.running:
                raise ApiError(409, "conflict", f"demonstration {self.current.id} is running; stop it first")
            demo = Demonstration(max_seconds, timing)
            loop = asyncio.get_running_loop()

            def on_event(event: InputEvent) -> None:   # the capture thread
                loop.call_soon_threadsafe(demo.on_event, event, time.time(), loop.time())

            def on_end(reason: str | None) -> None:    # the capture thread, once
                if reason is not None:
                    loop.call_soon_threadsafe(self._ended_by_itself, demo, reason)

            try:
                demo.capture = await loop.run_in_executor(
                    None, lambda: self._open(self.display, lambda: own_id_bases, on_event, on_end))
            except DisplayUnavailable as exc:
                raise unavailable(str(exc), retry_after=1) from None
            except X11Error as exc:      # no RECORD (or XTEST) on this server: nothing can capture
                raise ApiError(501, "not_supported", str(exc), extra={"backend": "x11", "feature": "X RECORD"}) from None
            self.current = demo
            self._limit_timer = loop.call_later(max_seconds, self._time_up, demo)
            return demo

    def _time_up(self, demo: Demonstration) -> None:
        self._ended_by_itself(demo, f"max_seconds ({demo.max_seconds:g} s) reached")

    def _ended_by_itself(self, demo: Demonstration, reason: str) -> None:
        """Its time is up, or the X server went away: ended, its connections closed."""
        if demo.running:
            demo.end(reason)
            if self._limit_timer is not None:
                self._limit_timer.cancel()
            asyncio.get_running_loop().create_task(self._close_capture(demo))

    async def _close_capture(self, demo: Demonstration) -> None:
        capture, demo.capture = demo.capture, None
        if capture is not None:
            await asyncio.get_running_loop().run_in_executor(None, capture.close)

    async def stop(self) -> Demonstration:
        async with self._lock:
            demo = self.current
            if demo is None or not demo.running:
                raise not_found("no demonstration is running")
            if self._limit_timer is not None:
                self._limit_timer.cancel()
            await self._close_capture(demo)   # every event read is handed over before this returns
            await asyncio.sleep(0)            # ...and its call_soon_threadsafe has run
            demo.end(None)
            return demo

    def get(self, demo_id: str | None = None) -> Demonstration:
        demo = self.current
        if demo is None or (demo_id is not None and demo.id != demo_id):
            raise not_found(f"no demonstration {demo_id}" if demo_id else "no demonstration was started")
        return demo

    async def close(self) -> None:
        if self.current is not None and self.current.running:
            await self.stop()
