"""Awaiting with a time limit without losing a cancellation.

Python 3.11's ``asyncio.wait_for`` swallows a cancellation that arrives in the same loop
iteration as the awaited result: it returns the result and the task runs on as if never
cancelled (fixed in 3.12, CPython gh-86296). A handler cancelled because its client left then
kept working: a paced drag moved the pointer for its whole duration. ``asyncio.timeout`` (3.11)
re-raises the cancellation, so every bounded await in the product goes through ``within``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable``, raising TimeoutError (asyncio.TimeoutError) after ``seconds``
    (None: no limit); a task passed in is cancelled on the timeout, as with wait_for."""
    async with asyncio.timeout(seconds):
        return await awaitable
