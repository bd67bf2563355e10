"""Keeping Python's memory work off a /layout request's critical path.

A full read parses a multi-megabyte accessibility tree into some fifty objects per element, builds
more, and drops the previous capture's. Freeing the parsed reply, and a collection right after
the request that walks every object it made, each cost about as much as a small part of the
read (docs/benchmarks.md). Neither has to happen before the answer is sent:

* ``gc_paused()`` pauses the cyclic collector while a layout is built (a counter: re-entrant,
  and safe across awaits and concurrent requests);
* ``release_later(...)`` keeps big garbage (parsed replies, the capture a new one replaced) and a
  pause of the collector alive until ``RELEASE_DELAY`` after the last call, then frees it and lets
  the collector run: after the response has been written, while the agent reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterator

RELEASE_DELAY = 0.05          # s; an agent's next request rarely comes sooner
MAX_HOLD = 0.5                # s; a client polling non-stop still gets its memory back

_pauses = 0                   # gc_paused() stretches and pending releases in progress
_was_enabled = False
_held: list[object] = []
_release: asyncio.TimerHandle | None = None
_release_loop: asyncio.AbstractEventLoop | None = None
_held_since = 0.0


def _pause() -> None:
    global _pauses, _was_enabled
    _flush_if_orphaned()
    if _pauses == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _pauses += 1


def _resume() -> None:
    global _pauses
    _pauses -= 1
    if _pauses == 0 and _was_enabled:
        gc.enable()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Building tens of thousands of small dicts triggers collections that find nothing: pause
    the cyclic collector meanwhile."""
    _pause()
    try:
        yield
    finally:
        _resume()


def release_later(*objects: object) -> None:
    """Hold ``objects`` (and a pause of the collector) until RELEASE_DELAY after the last call
    (at most MAX_HOLD after the first), then drop them. Without a running event loop they are
    dropped at once."""
    global _release, _release_loop, _held_since
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    if _release is not None and _release_loop is not loop:
        flush()                  # another loop's batch (tests run several loops in turn)
    _held.extend(objects)
    if _release is None:
        _pause()
        _release_loop, _held_since = loop, loop.time()
    elif loop.time() - _held_since < MAX_HOLD:
        _release.cancel()        # a request still running: wait for it too
    else:
        return
    _release = loop.call_later(RELEASE_DELAY, flush)


def flush() -> None:
    """Drop what release_later holds now, and lift its pause (also at shutdown)."""
    global _release, _release_loop
    if _release is None:
        return
    _release.cancel()
    _release = _release_loop = None
    _held.clear()                # still paused: freed by reference counting, nothing walked
    _resume()


def _flush_if_orphaned() -> None:
    """A batch whose event loop closed before its timer ran must not keep the collector off."""
    if _release_loop is not None and _release_loop.is_closed():
        flush()
