"""Unit tests of the eager refresher's bookkeeping (no browser): per-connection state is not
kept alive by itself, change notifications start at most one refresh per tab, and a request
that waits for a refresh uses its check only when that check went out after it arrived."""

from __future__ import annotations

import asyncio
import gc
import time

from sidecar.layout import builder
from sidecar.layout.options import LayoutOptions
from sidecar.layout.refresh import BINDING, EagerRefresher


class FakeConn:
    def __init__(self) -> None:
        self.listeners: dict[str, list] = {}

    def on(self, method, callback) -> None:
        self.listeners.setdefault(method, []).append(callback)

    def emit(self, method: str, params: dict, session_id: str) -> None:
        for callback in self.listeners.get(method, []):
            callback(params, session_id)


class FakePage:
    def __init__(self, target_id: str, session_id: str) -> None:
        self.target_id, self.session_id, self.children = target_id, session_id, {}
        self.sent: list[str] = []

    async def send(self, method: str, params: dict | None = None, **_kw) -> dict:
        self.sent.append(method)
        return {}


class FakeTracker:
    def __init__(self, conn: FakeConn, page: FakePage) -> None:
        self.conn, self.page = conn, page
        conn.on("Target.attachedToTarget", self.on_attached)     # conn -> tracker, like the real one

    def on_attached(self, *_args) -> None:
        pass

    def page_for_session(self, session_id: str):
        return self.page if session_id == self.page.session_id else None


def test_per_connection_state_dies_with_its_tracker():
    conn = FakeConn()
    tracker = FakeTracker(conn, FakePage("T", "S"))
    builder._state_for(conn, tracker)
    assert tracker in builder._states
    del tracker, conn
    gc.collect()
    assert not any(isinstance(t, FakeTracker) for t in builder._states.keys())


async def test_notifications_start_one_refresh_and_a_rerun():
    conn, page = FakeConn(), FakePage("T", "S")
    tracker = FakeTracker(conn, page)
    started: list[LayoutOptions] = []
    signals: list[str] = []
    release = asyncio.Event()

    async def refresh_tab(_page, options, signal):
        started.append(options)
        signals.append(signal)
        await release.wait()

    refresher = EagerRefresher(conn, tracker, refresh_tab)
    conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "S")
    assert refresher.state("T").task is None          # never asked for: not refreshed
    refresher.asked(page, LayoutOptions(interesting=True))
    await asyncio.wait_for(asyncio.gather(*refresher._tasks), 5)      # the binding call
    # The binding; page events (loads); the early script that keeps closed shadow roots.
    assert page.sent == ["Runtime.addBinding", "Page.enable", "Page.addScriptToEvaluateOnNewDocument"]
    refresher.asked(page, LayoutOptions(interesting=True))
    assert not refresher._tasks, "bound already: nothing sent again"
    conn.emit("Runtime.bindingCalled", {"name": "somethingElse", "payload": ""}, "S")
    conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "other-session")
    assert refresher.state("T").task is None
    for _ in range(3):                    # before the refresh starts: one refresh covers them
        conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "S")
    task = refresher.state("T").task
    while not started:
        await asyncio.sleep(0)            # let the refresh task start (it runs at once)
    assert started == [LayoutOptions(interesting=True)] and not refresher.state("T").again
    for count in range(3):                # while it runs: one rerun after it
        conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": f"tok:{count}:0"}, "S")
    assert refresher.state("T").task is task and refresher.state("T").again
    release.set()
    await asyncio.wait_for(task, 5)
    assert len(started) == 2 and refresher.state("T").refreshes == 2   # one rerun, not three
    assert signals == ["", "tok:2:0"]     # the rerun knows the page's latest signal
    # A new document's DOMContentLoaded and load event start a refresh too, with no signal to
    # compare.
    for count, event in enumerate(("Page.domContentEventFired", "Page.loadEventFired"), 3):
        conn.emit(event, {"timestamp": 1.0}, "S")
        await asyncio.wait_for(refresher.state("T").task, 5)
        assert len(started) == count and signals[-1] == ""


async def test_a_waiting_request_is_answered_by_a_check_sent_after_it_arrived(monkeypatch):
    conn, page = FakeConn(), FakePage("T", "S")
    tracker = FakeTracker(conn, page)
    state = builder._state_for(conn, tracker)
    own_checks: list[LayoutOptions] = []

    async def own_check(_page, options, _cache, _counts):
        own_checks.append(options)
        return "checked by the request"

    monkeypatch.setattr(builder, "_tab_layout", own_check)
    monkeypatch.setattr(builder, "_render", lambda _capture, probe, _metrics, _options: f"as of {probe}")
    capture = builder.Capture(signal=(), records=[], placements=[], source="accessibility",
                              sticky=False, sessions=[])
    state.cache["T"] = capture

    async def asked_during_a_refresh(options: LayoutOptions, check_sent_after_arrival: bool):
        """A request that arrives while a refresh holds the tab; the refresh's last check that
        the page is as captured went out before or after the request arrived."""
        refresh = state.refresher.state("T").lock
        await refresh.acquire()
        if not check_sent_after_arrival:
            capture.checked = builder.Probed("the refresh's check", {}, [], None, time.monotonic())
        request = asyncio.ensure_future(builder._locked_tab_layout(page, options, state))
        await asyncio.sleep(0)            # the request has arrived and waits for the tab
        if check_sent_after_arrival:
            await asyncio.sleep(0.001)
            capture.checked = builder.Probed("the refresh's check", {}, [], None, time.monotonic())
        refresh.release()
        return await asyncio.wait_for(request, 5)

    assert await asked_during_a_refresh(LayoutOptions(), True) == "as of the refresh's check"
    assert not own_checks
    # A check sent before the request arrived may predate what the client did: check again.
    assert await asked_during_a_refresh(LayoutOptions(), False) == "checked by the request"
    # ?fresh=true always reads anew.
    fresh = LayoutOptions(fresh=True)
    assert await asked_during_a_refresh(fresh, True) == "checked by the request"
    assert own_checks == [LayoutOptions(), fresh]
