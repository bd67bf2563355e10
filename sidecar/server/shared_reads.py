"""Identical concurrent reads share their work, never their freshness.

A burst of identical requests (fifty clients asking for a full read of every tab at once) would
make Chromium serialise fifty full accessibility trees. Here a request joins a read only if that
read starts after the request arrived: the one in flight when it arrives may have looked at the
page before the request was made, so the request waits for the next read instead, which every
request arriving meanwhile shares. A burst costs at most two reads; no answer is older than its
request."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")       # what a read gives


class SharedReads(Generic[T]):
    def __init__(self) -> None:
        self._running: dict[Hashable, asyncio.Future[T]] = {}
        self._next: dict[Hashable, asyncio.Future[T]] = {}
        self.started = 0       # reads actually made
        self.joined = 0        # requests answered by a read another request started

    async def read(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> T:
        waiting = self._next.get(key)
        if waiting is not None:            # not started yet, so it starts after this arrived
            self.joined += 1
            return await asyncio.shield(waiting)
        running = self._running.get(key)
        if running is None:
            return await asyncio.shield(self._start(key, make))
        self.joined += 1
        waiting = self._next[key] = asyncio.ensure_future(self._after(key, running, make))
        return await asyncio.shield(waiting)

    def _start(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        self.started += 1
        future = asyncio.ensure_future(make())
        self._running[key] = future

        def done(finished: asyncio.Future[T]) -> None:
            if self._running.get(key) is finished:
                del self._running[key]
            if not finished.cancelled():
                finished.exception()   # retrieved: every waiter may have left

        future.add_done_callback(done)
        return future

    async def _after(self, key: Hashable, running: asyncio.Future[T], make: Callable[[], Awaitable[T]]) -> T:
        await asyncio.wait({running})
        del self._next[key]
        return await self._start(key, make)
