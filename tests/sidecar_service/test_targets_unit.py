"""TargetTracker's bookkeeping, driven by scripted Target.* events from a fake CDP server."""

from __future__ import annotations

import pytest

from sidecar.cdp.connection import CDPConnection, CDPError, CDPSessionClosed, CDPTimeout
from sidecar.cdp.targets import CLOSE_REASK_S, TargetTracker

from .fake_cdp import FakeCDPServer, FakeError


def info(target_id: str, kind: str = "page", url: str = "about:blank", title: str = "") -> dict:
    return {"targetId": target_id, "type": kind, "url": url, "title": title or url, "attached": True}


async def attach_pages(fake_cdp: FakeCDPServer, *target_ids: str) -> None:
    """Chromium announcing attached tabs (session "S" + id each)."""
    for target in target_ids:
        await fake_cdp.emit("Target.targetCreated", {"targetInfo": info(target)})
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "S" + target, "targetInfo": info(target),
                                                        "waitingForDebugger": False})


async def started(fake_cdp: FakeCDPServer) -> tuple[CDPConnection, TargetTracker]:
    conn = await CDPConnection.connect(fake_cdp.url)
    tracker = TargetTracker(conn)
    await tracker.start()
    return conn, tracker


async def test_start_discovers_and_auto_attaches_flattened(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        methods = [m["method"] for m in fake_cdp.received]
        assert methods == ["Target.setDiscoverTargets", "Target.setAutoAttach"]
        params = fake_cdp.received[1]["params"]
        assert params["autoAttach"] is True and params["flatten"] is True
        assert params["waitForDebuggerOnStart"] is False
        assert "sessionId" not in fake_cdp.received[1]
    finally:
        tracker.stop()
        await conn.close()


async def test_pages_follow_attach_order_navigation_and_detach(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.targetCreated", {"targetInfo": info("B", url="http://b/")})
        await fake_cdp.emit("Target.targetCreated", {"targetInfo": info("A", url="http://a/")})
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SA", "targetInfo": info("A"),
                                                        "waitingForDebugger": False})
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SB", "targetInfo": info("B"),
                                                        "waitingForDebugger": False})
        page_b = await tracker.wait_for_page("B", 5)
        await tracker.wait_for_page("A", 5)
        # Creation order, not attach order.
        assert [p.target_id for p in tracker.pages()] == ["B", "A"]
        # Each page session got its own auto-attach (for OOPIFs).
        sessions = {m.get("sessionId") for m in fake_cdp.received if m["method"] == "Target.setAutoAttach"}
        assert sessions == {None, "SA", "SB"}

        await fake_cdp.emit("Target.targetInfoChanged",
                            {"targetInfo": info("B", url="http://b/next", title="Next")})
        await tracker.wait_for(lambda: page_b.url == "http://b/next", 5)
        assert page_b.title == "Next"
        assert tracker.find_page("b") is page_b          # prefix, any case
        assert tracker.find_page("") is None

        await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "SB", "targetId": "B"})
        await fake_cdp.emit("Target.targetDestroyed", {"targetId": "B"})
        await tracker.wait_for(lambda: tracker.find_page("B") is None, 5)
        assert [p.target_id for p in tracker.pages()] == ["A"]
        assert [t["id"] for t in tracker.targets()] == ["A"]
    finally:
        tracker.stop()
        await conn.close()


async def test_oopif_attaches_as_child_of_its_page_and_goes_with_it(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SP", "targetInfo": info("P"),
                                                        "waitingForDebugger": False})
        page = await tracker.wait_for_page("P", 5)
        await fake_cdp.emit("Target.attachedToTarget",
                            {"sessionId": "SF", "targetInfo": info("F", "iframe", "http://x/"),
                             "waitingForDebugger": False}, session_id="SP")
        # A nested OOPIF inside the first one still belongs to the tab.
        await fake_cdp.emit("Target.attachedToTarget",
                            {"sessionId": "SG", "targetInfo": info("G", "iframe", "http://y/"),
                             "waitingForDebugger": False}, session_id="SF")
        await tracker.wait_for(lambda: set(page.children) == {"F", "G"}, 5)
        assert page.children["F"].parent_target_id == "P"
        assert page.children["G"].parent_target_id == "F"
        assert page.children["G"].page_target_id == "P"
        assert tracker.page_for_session("SG") is page
        assert [p.target_id for p in tracker.pages()] == ["P"]   # iframes are not tabs
        by_id = {t["id"]: t for t in tracker.targets()}
        assert by_id["F"]["type"] == "iframe" and by_id["F"]["parentId"] == "P"

        await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "SF", "targetId": "F"},
                            session_id="SP")
        await tracker.wait_for(lambda: "F" not in page.children, 5)
        await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "SP", "targetId": "P"})
        await tracker.wait_for(lambda: not tracker.pages(), 5)
        assert tracker.page_for_session("SG") is None
    finally:
        tracker.stop()
        await conn.close()


async def test_target_waiting_for_debugger_is_resumed(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SW", "targetInfo": info("W"),
                                                        "waitingForDebugger": True})
        resume = await fake_cdp.wait_for_method("Runtime.runIfWaitingForDebugger")
        assert resume["sessionId"] == "SW"
    finally:
        tracker.stop()
        await conn.close()


async def test_non_page_browser_targets_are_not_tabs(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.attachedToTarget",
                            {"sessionId": "SW", "targetInfo": info("W", "service_worker"),
                             "waitingForDebugger": False})
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SP", "targetInfo": info("P"),
                                                        "waitingForDebugger": False})
        await tracker.wait_for_page("P", 5)
        assert [p.target_id for p in tracker.pages()] == ["P"]
    finally:
        tracker.stop()
        await conn.close()


async def test_prerendered_page_is_not_a_tab_until_activated(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SP", "targetInfo": info("P"),
                                                        "waitingForDebugger": False})
        await fake_cdp.emit("Target.attachedToTarget",
                            {"sessionId": "SR", "targetInfo": {**info("R"), "subtype": "prerender"},
                             "waitingForDebugger": False})
        await tracker.wait_for_page("R", 5)
        assert [p.target_id for p in tracker.pages()] == ["P"]
        await fake_cdp.emit("Target.targetInfoChanged", {"targetInfo": info("R", url="http://r/")})
        await tracker.wait_for(lambda: len(tracker.pages()) == 2, 5)
    finally:
        tracker.stop()
        await conn.close()


async def test_refresh_titles_updates_known_targets_only(fake_cdp: FakeCDPServer) -> None:
    conn, tracker = await started(fake_cdp)
    try:
        await fake_cdp.emit("Target.targetCreated", {"targetInfo": info("A", title="Old")})
        await fake_cdp.emit("Target.attachedToTarget", {"sessionId": "SA", "targetInfo": info("A", title="Old"),
                                                        "waitingForDebugger": False})
        page = await tracker.wait_for_page("A", 5)
        await fake_cdp.emit("Target.targetCrashed", {"targetId": "A", "status": "crashed", "errorCode": 1})
        await tracker.wait_for(lambda: page.crashed, 5)
        fake_cdp.handlers["Target.getTargets"] = lambda _m: {"targetInfos": [
            info("A", title="Set by script"), info("Z", title="Not known yet")]}
        await tracker.refresh_titles()
        assert page.title == "Set by script"
        assert page.crashed is True                      # only the title is taken from the reply
        assert [t["title"] for t in tracker.targets()] == ["Set by script"]
    finally:
        tracker.stop()
        await conn.close()


async def test_closing_a_tab_that_already_went_is_tab_closed_not_a_cdp_error(fake_cdp: FakeCDPServer) -> None:
    # Another request closed the tab between this one's lookup and its Target.closeTarget
    # (the sidecar fuzz test hit it: a 502 cdp_error "No target with given id found").
    conn, tracker = await started(fake_cdp)
    try:
        await attach_pages(fake_cdp, "A", "B")   # not the last tab: that one gets a blank neighbour first
        page = await tracker.wait_for_page("A", 5)
        await tracker.wait_for_page("B", 5)

        def gone(_message: dict) -> dict:
            raise FakeError(-32602, "No target with given id found")
        fake_cdp.handlers["Target.closeTarget"] = gone
        with pytest.raises(CDPSessionClosed):
            await tracker.close(page, 5)
        fake_cdp.handlers["Target.closeTarget"] = lambda _m: {"success": False}
        assert await tracker.close(page, 5) is False

        def other(_message: dict) -> dict:
            raise FakeError(-32000, "Something else")
        fake_cdp.handlers["Target.closeTarget"] = other
        with pytest.raises(CDPError) as raised:
            await tracker.close(page, 5)
        assert not isinstance(raised.value, CDPSessionClosed)
    finally:
        tracker.stop()
        await conn.close()


async def test_a_close_chromium_dropped_is_asked_again_until_the_tab_is_gone(fake_cdp: FakeCDPServer) -> None:
    # Chromium answers Target.closeTarget but keeps the tab open when the close meets a commit in a
    # new renderer (tests/sidecar_service/test_faults.py): the tracker asks again while it remains.
    conn, tracker = await started(fake_cdp)
    try:
        await attach_pages(fake_cdp, "A", "B", "C")   # never the last tab: that one gets a neighbour first
        page = await tracker.wait_for_page("A", 5)
        await tracker.wait_for_page("B", 5)
        asked: list[str] = []

        async def closes_the_second_time(message: dict) -> dict:
            asked.append(message["params"]["targetId"])
            if len(asked) == 2:
                await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "SA", "targetId": "A"})
                await fake_cdp.emit("Target.targetDestroyed", {"targetId": "A"})
            return {"success": True}
        fake_cdp.handlers["Target.closeTarget"] = closes_the_second_time
        assert await tracker.close(page, 10) is True
        assert asked == ["A", "A"] and tracker.find_page("A") is None

        # A tab that never goes: CDPTimeout once the caller's time is up, having asked each time.
        survivor = await tracker.wait_for_page("B", 5)
        asked.clear()
        fake_cdp.handlers["Target.closeTarget"] = lambda message: asked.append("B") or {"success": True}
        with pytest.raises(CDPTimeout):
            await tracker.close(survivor, CLOSE_REASK_S * 1.5)
        assert asked == ["B", "B"] and tracker.find_page("B") is survivor
    finally:
        tracker.stop()
        await conn.close()
