"""Unit tests of the layout service's and the eager refresher's bookkeeping (no browser): the
service's state is its own (not a module's) and goes with it, change notifications start at most
one refresh per tab, and a request that waits for a refresh uses its check only when that check
went out after it arrived."""

from __future__ import annotations

import asyncio
import dataclasses
import time

from sidecar.layout import LayoutService, service as service_module
from sidecar.layout.reading.capture import Capture
from sidecar.layout.output.options import LayoutOptions
from sidecar.layout.probing.probe import ProbeResult
from sidecar.layout.probing.change_signal import Probed
from sidecar.layout.freshness.refresh import BINDING, EagerRefresher
from sidecar.layout.freshness.tab import TabLayout


class FakeConn:
    connected = True

    def __init__(self) -> None:
        self.listeners: dict[str, list] = {}

    def on(self, method, callback) -> None:
        self.listeners.setdefault(method, []).append(callback)

    def off(self, method, callback) -> None:
        self.listeners.get(method, []).remove(callback)

    def emit(self, method: str, params: dict, session_id: str) -> None:
        for callback in list(self.listeners.get(method, [])):
            callback(params, session_id)


class FakePage:
    url, title, crashed, pending_navigation, navigations, navigation_started = "about:blank", "", False, None, 0, 0.0

    def __init__(self, target_id: str, session_id: str) -> None:
        self.target_id, self.session_id, self.children = target_id, session_id, {}
        self.sent: list[str] = []

    async def send(self, method: str, params: dict | None = None, **_kw) -> dict:
        self.sent.append(method)
        return {}


class FakeTracker:
    def __init__(self, page: FakePage) -> None:
        self.page = page

    def pages(self) -> list[FakePage]:
        return [self.page]

    def find_page(self, id_or_prefix: str) -> FakePage | None:
        return self.page if self.page.target_id.startswith(id_or_prefix) else None

    def page_for_session(self, session_id: str) -> FakePage | None:
        return self.page if session_id == self.page.session_id else None

    async def refresh_titles(self) -> None:
        pass


async def test_a_service_keeps_its_own_state_and_stop_lets_go_of_the_connection():
    conn, page = FakeConn(), FakePage("T", "S")
    first, second = LayoutService(conn, FakeTracker(page)), LayoutService(conn, FakeTracker(page))
    assert first.tab("T") is first.tab("T") and first.tab("T") is not second.tab("T")
    first.counters.captures += 1
    assert second.counters.captures == 0
    hooked = sum(len(callbacks) for callbacks in conn.listeners.values())
    assert hooked > 0, "the refresher listens for change notifications and loads"
    waiting = asyncio.ensure_future(asyncio.Event().wait())
    first.tab("T").refresh.task = waiting
    first.stop()
    await asyncio.sleep(0)
    assert waiting.cancelled(), "a refresh in flight ends with its service"
    assert sum(len(callbacks) for callbacks in conn.listeners.values()) == hooked // 2
    assert not first.tabs
    # Without the background refresh nothing listens to the connection at all.
    quiet = FakeConn()
    LayoutService(quiet, FakeTracker(page), refresh=False)
    assert not any(quiet.listeners.values())


async def test_notifications_start_one_refresh_and_a_rerun():
    conn, page = FakeConn(), FakePage("T", "S")
    tabs: dict[str, TabLayout] = {}
    started: list[LayoutOptions] = []
    signals: list[str] = []
    release = asyncio.Event()

    async def refresh_tab(_page, _tab, options, signal):
        started.append(options)
        signals.append(signal)
        await release.wait()

    refresher = EagerRefresher(conn, FakeTracker(page), tabs.get, refresh_tab)
    conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "S")
    tab = tabs["T"] = TabLayout()
    conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "S")
    assert tab.refresh.task is None                   # never asked for: not refreshed
    refresher.asked(page, tab, LayoutOptions(interesting=True))
    await asyncio.wait_for(refresher.settled(), 5)    # the binding call
    # The binding; page events (loads); the early script that keeps closed shadow roots.
    assert page.sent == ["Runtime.addBinding", "Page.enable", "Page.addScriptToEvaluateOnNewDocument"]
    refresher.asked(page, tab, LayoutOptions(interesting=True))
    assert refresher.in_flight() == 0, "bound already: nothing sent again"
    conn.emit("Runtime.bindingCalled", {"name": "somethingElse", "payload": ""}, "S")
    conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "other-session")
    assert tab.refresh.task is None
    for _ in range(3):                    # before the refresh starts: one refresh covers them
        conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": ""}, "S")
    task = tab.refresh.task
    while not started:
        await asyncio.sleep(0)            # let the refresh task start (it runs at once)
    assert started == [LayoutOptions(interesting=True)] and not tab.refresh.again
    for count in range(3):                # while it runs: one rerun after it
        conn.emit("Runtime.bindingCalled", {"name": BINDING, "payload": f"tok:{count}:0"}, "S")
    assert tab.refresh.task is task and tab.refresh.again
    release.set()
    await asyncio.wait_for(task, 5)
    assert len(started) == 2 and tab.refresh.refreshes == 2   # one rerun, not three
    assert signals == ["", "tok:2:0"]     # the rerun knows the page's latest signal
    # A new document's DOMContentLoaded and load event start a refresh too, with no signal to
    # compare.
    for count, event in enumerate(("Page.domContentEventFired", "Page.loadEventFired"), 3):
        conn.emit(event, {"timestamp": 1.0}, "S")
        await asyncio.wait_for(tab.refresh.task, 5)
        assert len(started) == count and signals[-1] == ""


async def test_a_waiting_request_is_answered_by_a_check_sent_after_it_arrived(monkeypatch):
    conn, page = FakeConn(), FakePage("T", "S")
    service = LayoutService(conn, FakeTracker(page))
    own_checks: list[LayoutOptions] = []

    async def own_check(_page, _tab, options, _readers, _counters):
        own_checks.append(options)
        return "checked by the request"

    refresh_probe = ProbeResult(frames=("tok:1:0",), device_pixel_ratio=1.0, screen_x=0, screen_y=0,
                                outer_width=800, outer_height=600, inner_width=800, inner_height=500,
                                client_width=800, client_height=500)
    # A focused <select>'s popup open at the refresh's check: nothing in the page proves it
    # unchanged since (probing.unprovable).
    popup_probe = dataclasses.replace(refresh_probe, popup_open=True)

    async def answer(_page, _capture, probe, _metrics, _options):
        return "as of the refresh's check" if probe is refresh_probe else f"as of {probe}"

    monkeypatch.setattr(service_module, "read_tab", own_check)
    monkeypatch.setattr(service_module, "answer", answer)
    capture = Capture(signal=(), records=[], placements=[], source="accessibility",
                      sticky=False, sessions=[])
    tab = service.tab("T")
    tab.capture = capture

    async def asked_during_a_refresh(options: LayoutOptions, check_sent_after_arrival: bool,
                                     probe: ProbeResult = refresh_probe):
        """A request that arrives while a refresh holds the tab; the refresh's last check that
        the page is as captured went out before or after the request arrived."""
        await tab.lock.acquire()
        if not check_sent_after_arrival:
            capture.checked = Probed(probe, {}, [], None, time.monotonic())
        request = asyncio.ensure_future(service.build(options))
        await asyncio.sleep(0)            # the request has arrived and waits for the tab
        if check_sent_after_arrival:
            await asyncio.sleep(0.001)
            capture.checked = Probed(probe, {}, [], None, time.monotonic())
        tab.lock.release()
        body = await asyncio.wait_for(request, 5)
        return body["tabs"][0]["layout"]

    assert await asked_during_a_refresh(LayoutOptions(tab="T"), True) == "as of the refresh's check"
    assert not own_checks
    # A check sent before the request arrived may predate what the client did: check again.
    assert await asked_during_a_refresh(LayoutOptions(tab="T"), False) == "checked by the request"
    # ?fresh=true always reads anew.
    fresh = LayoutOptions(tab="T", fresh=True)
    assert await asked_during_a_refresh(fresh, True) == "checked by the request"
    # An open <select> popup at that check: the request reads what it cannot prove unchanged.
    assert await asked_during_a_refresh(LayoutOptions(tab="T"), True, popup_probe) == "checked by the request"
    assert own_checks == [LayoutOptions(tab="T"), fresh, LayoutOptions(tab="T")]
    service.stop()


async def test_a_request_waits_for_the_tab_not_for_a_refresh_pausing_between_reads(monkeypatch):
    conn, page = FakeConn(), FakePage("T", "S")
    service = LayoutService(conn, FakeTracker(page))
    reads: list[str] = []

    async def read(_page, _tab, _options, _readers, _counters):
        reads.append("read")
        return "read by the request"

    monkeypatch.setattr(service_module, "read_tab", read)
    monkeypatch.setattr(service_module, "REFRESH_GRACE_S", 0.05)
    tab = service.tab("T")

    def layout(body):
        return body["tabs"][0]["layout"]

    # A busy page's refresh reading when the request arrives, then pausing before its next
    # read (the tab free): the request reads as soon as the tab is free; the refresh goes on.
    pause, read_done = asyncio.Event(), asyncio.Event()

    async def busy() -> None:
        async with tab.lock:
            tab.refresh.reading = True
            await read_done.wait()
            tab.refresh.reading = False
        await pause.wait()

    tab.refresh.task = pausing = asyncio.ensure_future(busy())
    await asyncio.sleep(0)
    request = asyncio.ensure_future(service.build(LayoutOptions(tab="T")))
    for _ in range(5):                       # the request's tasks start, find the tab taken
        await asyncio.sleep(0)
    read_done.set()
    assert layout(await request) == "read by the request"
    await asyncio.sleep(0)                   # (a cancellation would have ended it by now)
    assert not pausing.done()

    # A refresh that holds the tab past the grace (its page does not answer): cancelled.
    async def stuck() -> None:
        async with tab.lock:
            tab.refresh.reading = True
            try:
                await asyncio.Event().wait()
            finally:
                tab.refresh.reading = False

    tab.refresh.task = blocked = asyncio.ensure_future(stuck())
    await asyncio.sleep(0)
    assert layout(await service.build(LayoutOptions(tab="T"))) == "read by the request"
    assert blocked.cancelled() and not tab.lock.locked()

    # Another request holding the tab is waited for, and a pausing refresh is left alone.
    await tab.lock.acquire()
    request = asyncio.ensure_future(service.build(LayoutOptions(tab="T")))
    await asyncio.sleep(0.1)                 # past the grace
    assert not request.done() and not pausing.done()
    tab.lock.release()
    assert layout(await request) == "read by the request" and reads == ["read"] * 3
    pause.set()
    await pausing
    service.stop()
