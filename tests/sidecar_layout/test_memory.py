"""sidecar.layout.runtime.memory: garbage held past the request, the collector paused meanwhile, and
both always given back (after the delay, at MAX_HOLD under steady load, or when the loop that
held them has closed)."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from sidecar.layout.runtime import memory


class Garbage:
    """Something weakly referable, to see when it is freed."""


@pytest.fixture(autouse=True)
def collector_on():
    memory.flush()
    gc.enable()
    yield
    memory.flush()
    gc.enable()


async def test_released_garbage_lives_until_the_delay_with_the_collector_paused():
    garbage = Garbage()
    alive = weakref.ref(garbage)
    memory.release_later(garbage)
    del garbage
    assert alive() is not None and not gc.isenabled()
    with memory.gc_paused():                 # a request meanwhile keeps its own pause
        pass
    assert not gc.isenabled()
    await asyncio.sleep(memory.RELEASE_DELAY * 3)
    assert alive() is None and gc.isenabled()


async def test_each_release_waits_for_the_last_but_never_beyond_max_hold(monkeypatch):
    monkeypatch.setattr(memory, "RELEASE_DELAY", 0.05)
    monkeypatch.setattr(memory, "MAX_HOLD", 0.2)
    first = Garbage()
    alive = weakref.ref(first)
    memory.release_later(first)
    del first
    # A client polling every 30 ms: each call would push the release 50 ms on, but the batch
    # is let go at most 200 ms (+ one delay) after it started.
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(40):
        await asyncio.sleep(0.03)
        memory.release_later(Garbage())
        if alive() is None:
            break
    assert alive() is None, "held for ever under steady load"
    assert loop.time() - started >= 0.05
    memory.flush()
    assert gc.isenabled()


async def test_flush_frees_at_once():
    garbage = Garbage()
    alive = weakref.ref(garbage)
    memory.release_later(garbage)
    del garbage
    memory.flush()
    assert alive() is None and gc.isenabled()


def test_without_an_event_loop_nothing_is_held():
    garbage = Garbage()
    alive = weakref.ref(garbage)
    memory.release_later(garbage)
    del garbage
    assert alive() is None and gc.isenabled()


def test_a_batch_of_a_closed_loop_does_not_keep_the_collector_off():
    loop = asyncio.new_event_loop()
    garbage = Garbage()
    alive = weakref.ref(garbage)

    async def hold() -> None:
        memory.release_later(garbage)

    loop.run_until_complete(hold())
    loop.close()                             # before the release timer ran
    del garbage
    assert alive() is not None and not gc.isenabled()
    with memory.gc_paused():                 # the next pause notices the orphaned batch
        assert alive() is None
    assert gc.isenabled()


def test_gc_paused_nests_and_restores_a_disabled_collector():
    gc.disable()
    with memory.gc_paused():
        with memory.gc_paused():
            assert not gc.isenabled()
    assert not gc.isenabled()                # it was off before: it stays off
    gc.enable()
    with memory.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
