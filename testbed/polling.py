"""Waiting on a condition a test can only poll for (an HTTP answer, another process's window):
bounded, failing with what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll_until(found: Callable[[], T], what: str, timeout: float = 30.0, interval: float = 0.1) -> T:
    """``found()``'s first truthy result, polled every ``interval`` s; AssertionError naming
    ``what`` when none came within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not (result := found()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen within {timeout} s")
        time.sleep(interval)
    return result
