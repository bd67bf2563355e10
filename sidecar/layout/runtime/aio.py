"""Small asyncio helpers the readers share: a call's outcome as a value, and a call of nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def nothing() -> dict:
    return {}


def or_exception(call: Awaitable[T]) -> Awaitable[T | Exception]:
    """``call``'s result, or the exception it raised, as a value. The call is scheduled at once:
    a wrapper cancelled before it ever ran would otherwise leave ``call`` never awaited."""
    task = asyncio.ensure_future(call)
    task.add_done_callback(_consume_outcome)
    return _outcome(task)


def _consume_outcome(task: asyncio.Future) -> None:
    # Marks the exception retrieved when nobody awaits the task any more (a cancelled caller).
    if not task.cancelled():
        task.exception()


async def _outcome(task: asyncio.Future[T]) -> T | Exception:
    try:
        return await task
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return exc
