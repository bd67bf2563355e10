"""wait_quiet on a change log fed by hand: how a settle ends (quiet, max, unobserved) and what
it counts; the damage reader itself is exercised on real Xvfb in tests/computer_use."""

from __future__ import annotations

import asyncio

from desktopd.settle import Mark, SettleSpec, Settler, wait_quiet
from desktopd.x11.damage import ChangeLog


def marked(log: ChangeLog) -> Mark:
    return Mark.now(log)


async def test_a_still_screen_settles_quiet_without_changes():
    log = ChangeLog()
    settled = await wait_quiet(marked(log), SettleSpec(maximum=1.0, quiet=0.01))
    assert (settled.reason, settled.changes, settled.last_change_s) == ("quiet", 0, None)


async def test_changes_before_the_act_do_not_count():
    log = ChangeLog()
    log.add((0, 0, 10, 10))
    settled = await wait_quiet(marked(log), SettleSpec(maximum=1.0, quiet=0.01))
    assert (settled.reason, settled.changes) == ("quiet", 0)


async def test_a_change_within_the_window_is_waited_for_and_counted():
    log = ChangeLog()
    mark = marked(log)

    async def react():
        await asyncio.sleep(0.02)
        log.add((5, 5, 20, 20))
    reaction = asyncio.ensure_future(react())
    settled = await wait_quiet(mark, SettleSpec(maximum=5.0, quiet=0.5))
    await reaction
    assert (settled.reason, settled.changes) == ("quiet", 1)
    assert settled.waited_s >= settled.last_change_s + 0.5


async def test_a_screen_that_keeps_changing_ends_at_the_maximum():
    log = ChangeLog()
    mark = marked(log)
    stop = asyncio.Event()

    async def animate():
        while not stop.is_set():
            log.add((0, 0, 48, 48))
            await asyncio.sleep(0.005)
    animation = asyncio.ensure_future(animate())
    try:
        settled = await wait_quiet(mark, SettleSpec(maximum=0.2, quiet=0.1))
    finally:
        stop.set()
        await animation
    assert settled.reason == "max" and settled.changes > 1
    assert settled.json()["settle"] == 0.2


async def test_a_reader_that_stopped_says_the_wait_is_unobserved():
    log = ChangeLog()
    mark = marked(log)
    log.add((0, 0, 1, 1))
    log.close("X connection lost")
    settled = await wait_quiet(mark, SettleSpec(maximum=1.0, quiet=0.5))
    assert (settled.reason, settled.detail) == ("unobserved", "X connection lost")


async def test_step_refuses_two_acts_and_settles_unobserved_on_a_fake_desktop(client):
    resp = await client.post("/api/v1/step", json={"tablet": {"x": 1, "y": 1}, "keyboard": {"text": "a"}})
    assert resp.status == 422 and (await resp.json())["field"] == "keyboard"
    resp = await client.post("/api/v1/step", json={"settle_quiet": 0.01})
    body = await resp.json()
    assert resp.status == 200, body
    assert body["settled"]["reason"] == "unobserved" and body["screenshot"] is None


class _Watcher:
    """A stand-in for DamageWatcher: a change log whose reader may stop."""

    def __init__(self) -> None:
        self.log = ChangeLog()
        self.closed = False

    @property
    def alive(self) -> bool:
        return self.log.closed_reason is None

    def close(self) -> None:
        self.closed = True


async def test_a_watcher_whose_reader_stopped_is_replaced_at_the_next_act():
    opened: list[_Watcher] = []

    def opener(display: str) -> _Watcher:
        opened.append(_Watcher())
        return opened[-1]
    settler = Settler(":1", opener=opener)
    await settler.start()
    opened[0].log.close("X connection lost")          # the server went away
    mark = await settler.mark()
    assert len(opened) == 2 and opened[0].closed and settler.info()["watching"]
    settled = await settler.settle(mark, SettleSpec(maximum=1.0, quiet=0.01))
    assert settled.reason == "quiet"
    await settler.close()
