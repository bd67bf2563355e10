"""httpapi.bounded.within: a bounded await that never loses its task's cancellation."""

from __future__ import annotations

import asyncio

import pytest

from httpapi.bounded import within


async def test_a_cancellation_arriving_with_the_result_is_kept() -> None:
    # The awaited result and the task's cancellation land in the same loop iteration: the
    # moment a client hangs up while an X call returns. asyncio.wait_for (3.11) returns the
    # result there and the handler runs on; within must raise CancelledError.
    result = asyncio.get_running_loop().create_future()
    waiter = asyncio.ensure_future(within(result, 10))
    await asyncio.sleep(0)           # waiter now awaits `result`
    result.set_result("done")
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter


async def test_the_limit_raises_timeout_and_cancels_a_task_passed_in() -> None:
    task = asyncio.ensure_future(asyncio.sleep(30))
    with pytest.raises(asyncio.TimeoutError):
        await within(task, 0.01)
    assert task.cancelled()


async def test_no_limit_and_a_result() -> None:
    assert await within(asyncio.sleep(0, result=7), None) == 7
    assert await within(asyncio.sleep(0, result=8), 5) == 8
