"""wait_quiet on a change log fed by hand: how a settle ends (quiet, max, unobserved) and what
it counts; the damage reader itself is exercised on real Xvfb in tests/computer_use."""

from __future__ import annotations

import asyncio
import time

from desktopd.computer.vendor_format import server_side
from desktopd.settle.settler import FRAME_QUIET_S, CaptureCache, Mark, Settler, SettleSpec, wait_quiet
from desktopd.settle.browser import Clicks, Verdict, tablet_clicks
from desktopd.x11.damage import ChangeLog
from desktopd_contract.formats import FORMATS


def marked(log: ChangeLog) -> Mark:
    return Mark.now(log)


async def a_late_change_is_in_the_wait(delay: float, spec: SettleSpec, verdict: Verdict | None = None) -> None:
    """A change reported ``delay`` s after the act (and the page's ``verdict`` 5 ms after it) is
    counted, and the wait ends a quiet window after it."""
    log = ChangeLog()
    mark = marked(log)

    async def change() -> None:
        await asyncio.sleep(delay)
        log.add((5, 5, 20, 20))
    reaction = asyncio.ensure_future(change())
    settled = await wait_quiet(mark, spec, None if verdict is None else verdict_after(0.005, verdict), mark.at)
    await reaction
    assert (settled.reason, settled.changes) == ("quiet", 1)
    assert settled.waited_s >= settled.last_change_s + spec.quiet


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
    await a_late_change_is_in_the_wait(0.02, SettleSpec(maximum=5.0, quiet=0.5))


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


async def test_a_reader_that_stops_while_the_wait_sleeps_is_unobserved_not_quiet():
    # The quiet window would end with no change seen, but the reader stopped inside it: the
    # changes after that are unknown, so the wait cannot vouch for a quiet screen.
    log = ChangeLog()
    mark = marked(log)
    asyncio.get_running_loop().call_later(0.02, log.close, "Wayland connection lost")
    settled = await wait_quiet(mark, SettleSpec(maximum=1.0, quiet=0.1))
    assert (settled.reason, settled.detail) == ("unobserved", "Wayland connection lost")


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


# -- the browser's verdict on a click (desktopd/settle/browser.py) ------------------------------

def verdict_after(delay: float, verdict: Verdict) -> asyncio.Future[Verdict]:
    async def answer() -> Verdict:
        await asyncio.sleep(delay)
        return verdict
    return asyncio.ensure_future(answer())


async def test_an_idle_page_ends_the_wait_before_the_quiet_window():
    log = ChangeLog()
    mark = marked(log)
    settled = await wait_quiet(mark, SettleSpec(maximum=5.0, quiet=2.0),
                               verdict_after(0.01, Verdict("idle", "nothing to draw")))
    assert (settled.reason, settled.evidence, settled.changes) == ("quiet", "browser", 0)
    assert settled.waited_s < 2.0
    assert settled.json()["browser"]["evidence"] == "idle"


async def test_an_idle_verdict_after_a_change_leaves_the_wait_to_the_quiet_window():
    log = ChangeLog()
    mark = marked(log)
    log.add((0, 0, 5, 5))
    settled = await wait_quiet(mark, SettleSpec(maximum=5.0, quiet=0.2),
                               verdict_after(0.01, Verdict("idle", "nothing to draw")))
    assert (settled.reason, settled.evidence, settled.changes) == ("quiet", "damage", 1)
    assert settled.waited_s >= 0.2


async def test_the_wait_holds_for_the_verdict_then_waits_a_window_past_the_timers_due():
    log = ChangeLog()
    mark = marked(log)
    # The page answers after the quiet window: its reaction timer is due 0.15 s after the act.
    settled = await wait_quiet(mark, SettleSpec(maximum=5.0, quiet=0.05),
                               verdict_after(0.08, Verdict("changed", "timers pending", due_s=0.15, due_in_s=0.07)),
                               clicks_at=mark.at)
    assert (settled.reason, settled.evidence) == ("quiet", "damage")
    assert settled.waited_s >= 0.15 + 0.05


async def test_a_changed_page_restarts_the_quiet_window_from_its_verdict():
    log = ChangeLog()
    mark = marked(log)
    settled = await wait_quiet(mark, SettleSpec(maximum=5.0, quiet=0.05),
                               verdict_after(0.1, Verdict("changed", "the page changed")), clicks_at=mark.at)
    assert settled.reason == "quiet" and settled.waited_s >= 0.1 + 0.05


async def test_a_changed_page_is_given_time_to_draw_and_ends_quiet_after_its_drawing():
    # Drawn past the quiet window after the verdict.
    await a_late_change_is_in_the_wait(0.06, SettleSpec(maximum=5.0, quiet=0.02),
                                       Verdict("changed", "the page changed"))


async def test_a_verdict_that_never_comes_ends_at_the_maximum():
    log = ChangeLog()
    mark = marked(log)
    settled = await wait_quiet(mark, SettleSpec(maximum=0.2, quiet=0.01), asyncio.get_running_loop().create_future())
    assert settled.reason == "max" and settled.waited_s >= 0.2


class _Browser:
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.asked: list[tuple[Clicks, float, float]] = []

    async def ask(self, clicks: Clicks, wait_s: float, horizon_s: float) -> Verdict:
        self.asked.append((clicks, wait_s, horizon_s))
        return self.verdict

    async def close(self) -> None:
        pass


async def test_the_settler_asks_the_browser_only_for_clicks_and_when_allowed():
    browser = _Browser(Verdict("idle", "nothing to draw"))
    settler = Settler(":1", opener=lambda display: _Watcher(), browser=browser)
    await settler.start()
    clicks = Clicks(time.monotonic(), 1)
    spec = SettleSpec(maximum=5.0, quiet=1.0)
    assert (await settler.settle(await settler.mark(), spec, clicks)).evidence == "browser"
    assert len(browser.asked) == 1 and 0 < browser.asked[0][1] <= 1.0 and browser.asked[0][2] <= 5.0
    off = await settler.settle(await settler.mark(), SettleSpec(maximum=0.3, quiet=0.05, browser=False), clicks)
    no_click = await settler.settle(await settler.mark(), SettleSpec(maximum=0.3, quiet=0.05))
    assert off.evidence == no_click.evidence == "damage" and len(browser.asked) == 1
    await settler.close()


def test_which_acts_are_clicks_a_page_can_confirm():
    anthropic_clicks, openai_clicks = (server_side(FORMATS[name]).clicks for name in ("anthropic", "openai"))
    assert anthropic_clicks([{"action": "triple_click"}], 1.0) == Clicks(1.0, 3)
    assert anthropic_clicks([{"action": "left_click", "text": "shift"}], 1.0) is None
    assert anthropic_clicks([{"action": "right_click"}], 1.0) is None
    assert openai_clicks([{"type": "click", "button": "left", "x": 1, "y": 1}], 1.0) == Clicks(1.0, 1)
    assert openai_clicks([{"type": "click", "button": "right", "x": 1, "y": 1}], 1.0) is None
    assert openai_clicks([{"type": "click", "button": "left"}, {"type": "click", "button": "left"}], 1.0) is None
    assert tablet_clicks({"action": "click", "button": "left", "clicks": 2, "events": None, "modifiers": []}, 1.0) \
        == Clicks(1.0, 2)
    assert tablet_clicks({"action": "scroll", "events": None, "modifiers": []}, 1.0) is None


async def test_a_capture_is_given_again_only_while_the_screen_reported_no_change():
    log = ChangeLog()
    cache = CaptureCache()
    taken: list[int] = []

    async def capture() -> int:
        taken.append(len(taken))
        return taken[-1]
    cached = cache.wrap(lambda: log, "png", capture)
    assert [await cached(), await cached()] == [0, 0] and len(taken) == 1
    log.add((0, 0, 1, 1))
    assert await cached() == 1
    other = cache.wrap(lambda: ChangeLog(), "png", capture)      # a new watcher's log vouches for nothing old
    assert await other() == 2
    log.close("X connection lost")
    assert await cached() == 3 and await cached() == 4


# The page's word that its change is drawn in one frame it already produced, landing in the
# viewport (0, 80)-(1280, 800): its damage, not a quiet window, ends the wait.
VIEWPORT = (0, 80, 1280, 720)


async def one_frame_wait(rect: tuple[int, int, int, int], spec: SettleSpec, drawn_s: float | None = None):
    """The page's one-frame verdict 5 ms after the act (its frame produced ``drawn_s`` after it),
    and damage of ``rect`` read 10 ms after it."""
    log = ChangeLog()
    mark = marked(log)

    async def change() -> None:
        await asyncio.sleep(0.01)
        log.add(rect)
    drawing = asyncio.ensure_future(change())
    settled = await wait_quiet(mark, spec, verdict_after(0.005, Verdict("changed", "the page changed",
                                                                        frame_at=VIEWPORT, drawn_s=drawn_s)), mark.at)
    await drawing
    return settled


async def test_a_one_frame_change_ends_a_short_window_after_its_frame_is_drawn():
    spec = SettleSpec(maximum=5.0, quiet=0.5)
    settled = await one_frame_wait((0, 400, 1280, 400), spec)
    assert (settled.reason, settled.evidence, settled.changes) == ("quiet", "damage", 1)
    assert settled.last_change_s + FRAME_QUIET_S <= settled.waited_s < spec.quiet
    assert settled.json()["window_s"] == FRAME_QUIET_S and settled.json()["browser"]["one_frame"] is True


async def test_damage_outside_the_pages_viewport_is_not_its_frame():
    # The browser's tab strip above the viewport (as Chromium reports it: a rectangle from the
    # top of its window reaching into the viewport): the quiet window still runs.
    spec = SettleSpec(maximum=5.0, quiet=0.2)
    for strip in ((0, 0, 1280, 40), (0, 0, 1200, 256)):
        settled = await one_frame_wait(strip, spec)
        assert (settled.reason, settled.changes) == ("quiet", 1)
        assert settled.waited_s >= settled.last_change_s + spec.quiet
        assert "window_s" not in settled.json()


async def test_a_redraw_covering_the_whole_viewport_is_its_frame():
    # Chromium presents its tab strip's change (a new title) and the page's frame in one: the
    # damage is their union, the whole window, which holds the page's frame.
    spec = SettleSpec(maximum=5.0, quiet=0.5)
    settled = await one_frame_wait((0, 0, 1280, 800), spec)
    assert (settled.reason, settled.changes) == ("quiet", 1)
    assert settled.json()["window_s"] == FRAME_QUIET_S and settled.waited_s < spec.quiet


async def test_damage_read_before_the_pages_frame_began_is_not_its_frame():
    # The page produced its frame a second after the act: damage read 10 ms after it is an
    # earlier frame's, so the quiet window runs; damage read after then is the frame's.
    spec = SettleSpec(maximum=5.0, quiet=0.2)
    settled = await one_frame_wait((0, 400, 1280, 400), spec, drawn_s=1.0)
    assert "window_s" not in settled.json() and settled.waited_s >= settled.last_change_s + spec.quiet
    settled = await one_frame_wait((0, 400, 1280, 400), spec, drawn_s=0.002)
    assert settled.json()["window_s"] == FRAME_QUIET_S
    assert settled.json()["browser"]["drawn_s"] == 0.002


async def test_a_one_frame_wait_is_calm_only_once_that_frames_damage_came():
    # The tab strip's damage came first and the page's frame is produced: a capture now would
    # be taken again once the frame lands, so calm waits for damage where the page lies.
    log = ChangeLog()
    mark = marked(log)
    calm = asyncio.Event()
    verdict = verdict_after(0.0, Verdict("changed", "the page changed", frame_at=VIEWPORT))
    log.add((0, 0, 1200, 40))
    waiting = asyncio.ensure_future(wait_quiet(mark, SettleSpec(maximum=5.0, quiet=2.0), verdict, mark.at, calm))
    await asyncio.sleep(0.05)
    assert verdict.done() and not calm.is_set()
    log.add((0, 80, 1280, 720))
    await asyncio.wait_for(calm.wait(), 1.0)      # well before the 2 s window could set it
    settled = await waiting
    assert settled.json()["window_s"] == FRAME_QUIET_S and settled.changes == 2


async def test_a_one_frame_verdict_whose_frame_draws_nowhere_in_the_page_calms_after_the_window():
    # A change that only retitles the tab: no damage in the viewport ever comes; the capture
    # starts a quiet window after the verdict, and the wait ends as on damage alone.
    log = ChangeLog()
    mark = marked(log)
    calm = asyncio.Event()
    log.add((0, 0, 1200, 40))
    spec = SettleSpec(maximum=5.0, quiet=0.5)
    waiting = asyncio.ensure_future(wait_quiet(
        mark, spec, verdict_after(0.0, Verdict("changed", "the page changed", frame_at=VIEWPORT)), mark.at, calm))
    await asyncio.sleep(0.02)
    assert not calm.is_set()
    settled = await waiting
    assert calm.is_set() and settled.reason == "quiet" and "window_s" not in settled.json()


async def test_the_wait_is_calm_only_once_the_verdict_and_the_drawing_it_announced_are_in():
    # settled_capture starts its capture on ``calm``: never before the change the page announced.
    log = ChangeLog()
    mark = marked(log)
    browser: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
    calm = asyncio.Event()
    waiting = asyncio.ensure_future(wait_quiet(mark, SettleSpec(maximum=5.0, quiet=0.05), browser, mark.at, calm))
    await asyncio.sleep(0.02)
    assert not calm.is_set()                       # the verdict is awaited
    browser.set_result(Verdict("changed", "the page changed", frame_at=VIEWPORT))
    await asyncio.sleep(0.02)
    assert not calm.is_set()                       # its drawing is awaited
    log.add((0, 400, 1280, 400))
    settled = await waiting
    assert calm.is_set() and settled.changes == 1
