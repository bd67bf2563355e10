"""CDPConnection against a fake CDP server: correlation, timeouts, disconnects, events, sessions."""

from __future__ import annotations

import asyncio
import json

import pytest

from sidecar.cdp import connection as connection_module
from sidecar.cdp.connection import (CDPConnection, CDPDisconnected, CDPError, CDPSessionClosed,
                                    CDPTimeout)

from .fake_cdp import NO_REPLY, FakeCDPServer, FakeError


async def test_replies_are_matched_to_their_calls_even_out_of_order(fake_cdp: FakeCDPServer) -> None:
    release_first = asyncio.Event()

    async def slow(message: dict) -> dict:
        await release_first.wait()
        return {"which": message["params"]["n"]}

    fake_cdp.handlers["Slow.echo"] = slow
    fake_cdp.handlers["Fast.echo"] = lambda m: {"which": m["params"]["n"]}
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        slow_call = asyncio.ensure_future(conn.send("Slow.echo", {"n": 1}))
        await fake_cdp.wait_for_method("Slow.echo")
        # The fake server handles one socket's messages in order, so answer the slow one later
        # from another task: release it only after the fast reply has come back.
        fast = asyncio.ensure_future(conn.send("Fast.echo", {"n": 2}))
        await asyncio.sleep(0)
        release_first.set()
        assert await slow_call == {"which": 1}
        assert await fast == {"which": 2}
        assert conn.stats()["pending"] == 0
    finally:
        await conn.close()


async def test_concurrent_calls_each_get_their_own_reply(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Echo.n"] = lambda m: {"n": m["params"]["n"]}
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        results = await asyncio.gather(*(conn.send("Echo.n", {"n": i}) for i in range(50)))
        assert [r["n"] for r in results] == list(range(50))
    finally:
        await conn.close()


async def test_error_reply_raises_cdp_error_with_code_and_method(fake_cdp: FakeCDPServer) -> None:
    def fail(_m: dict) -> dict:
        raise FakeError(-32000, "No node with given id found")

    fake_cdp.handlers["DOM.getBoxModel"] = fail
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        with pytest.raises(CDPError) as caught:
            await conn.send("DOM.getBoxModel", {"nodeId": 1})
        assert caught.value.code == -32000
        assert caught.value.method == "DOM.getBoxModel"
        assert "No node" in caught.value.message
        assert not isinstance(caught.value, (CDPTimeout, CDPDisconnected))
    finally:
        await conn.close()


async def test_timeout_raises_and_removes_the_pending_entry(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Never.answer"] = lambda _m: NO_REPLY
    conn = await CDPConnection.connect(fake_cdp.url, call_timeout=0.2)
    try:
        with pytest.raises(CDPTimeout):
            await conn.send("Never.answer")
        with pytest.raises(CDPTimeout):
            await conn.send("Never.answer", timeout=0.1)
        assert conn.stats()["pending"] == 0
        assert conn.connected
        assert await conn.send("Still.works") == {}
    finally:
        await conn.close()


async def test_socket_close_fails_every_pending_call_at_once(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Never.answer"] = lambda _m: NO_REPLY
    # A long call timeout: the calls must fail because the socket closed, not because they timed out.
    conn = await CDPConnection.connect(fake_cdp.url, call_timeout=60)
    calls = [asyncio.ensure_future(conn.send("Never.answer", {"i": i})) for i in range(5)]
    while len(fake_cdp.received) < 5:
        await fake_cdp.wait_for_method("Never.answer")
        await asyncio.sleep(0.01)
    await fake_cdp.drop()
    results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
    assert all(isinstance(r, CDPDisconnected) for r in results), results
    assert not conn.connected
    assert await asyncio.wait_for(conn.wait_closed(), 5)
    with pytest.raises(CDPDisconnected):
        await conn.send("After.close")
    await conn.close()


async def test_client_close_fails_pending_calls(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Never.answer"] = lambda _m: NO_REPLY
    conn = await CDPConnection.connect(fake_cdp.url, call_timeout=60)
    call = asyncio.ensure_future(conn.send("Never.answer"))
    await fake_cdp.wait_for_method("Never.answer")
    await conn.close()
    with pytest.raises(CDPDisconnected):
        await asyncio.wait_for(call, 10)


async def test_connect_to_nothing_fails_fast_with_cdp_disconnected() -> None:
    import socket

    with socket.socket() as probe:   # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(CDPDisconnected, match="cannot connect"):
        await CDPConnection.connect(f"ws://127.0.0.1:{port}/devtools/browser/x", open_timeout=5)


async def test_events_reach_callbacks_with_their_session(fake_cdp: FakeCDPServer) -> None:
    conn = await CDPConnection.connect(fake_cdp.url)
    seen: list[tuple[dict, str | None]] = []

    def broken(_params: dict, _session: str | None) -> None:
        raise RuntimeError("a listener bug")

    conn.on("Page.loadEventFired", broken)
    conn.on("Page.loadEventFired", lambda p, s: seen.append((p, s)))
    try:
        async with conn.events("Page.loadEventFired") as stream:
            await fake_cdp.emit("Page.loadEventFired", {"timestamp": 1}, session_id="S1")
            await fake_cdp.emit("Page.loadEventFired", {"timestamp": 2})
            first = await stream.get(timeout=5)
            second = await stream.get(timeout=5)
        assert first == ("Page.loadEventFired", {"timestamp": 1}, "S1")
        assert second == ("Page.loadEventFired", {"timestamp": 2}, None)
        assert seen == [({"timestamp": 1}, "S1"), ({"timestamp": 2}, None)]
        assert conn.connected  # the broken listener did not kill the reader
    finally:
        await conn.close()


async def test_session_filtered_stream_and_session_routing(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Runtime.evaluate"] = lambda m: {"session": m.get("sessionId")}
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        assert await conn.send("Runtime.evaluate", session_id="S2") == {"session": "S2"}
        assert await conn.send("Runtime.evaluate") == {"session": None}
        sent = [m for m in fake_cdp.received if m["method"] == "Runtime.evaluate"]
        assert sent[0]["sessionId"] == "S2" and "sessionId" not in sent[1]
        stream = conn.events("Log.entryAdded", session_id="S2")
        await fake_cdp.emit("Log.entryAdded", {"n": 1}, session_id="S1")
        await fake_cdp.emit("Log.entryAdded", {"n": 2}, session_id="S2")
        assert await stream.get(timeout=5) == ("Log.entryAdded", {"n": 2}, "S2")
        stream.close()
    finally:
        await conn.close()


async def test_slow_consumer_drops_and_counts_instead_of_growing(fake_cdp: FakeCDPServer) -> None:
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        stream = conn.events("Network.dataReceived", maxsize=10)
        for i in range(50):
            await fake_cdp.emit("Network.dataReceived", {"i": i})
        await conn.send("Sync.barrier")   # replies come after the events on the same socket
        assert stream.dropped == 40
        assert conn.stats()["dropped_events"] == 40
        got = [(await stream.get(timeout=1))[1]["i"] for _ in range(10)]
        assert got == list(range(10))      # the oldest ones were kept, in order
        with pytest.raises(CDPTimeout):
            await stream.get(timeout=0.05)
        stream.close()
    finally:
        await conn.close()


async def test_stream_ends_with_disconnected_when_socket_drops(fake_cdp: FakeCDPServer) -> None:
    conn = await CDPConnection.connect(fake_cdp.url)
    stream = conn.events("Page.frameNavigated")
    getter = asyncio.ensure_future(stream.get(timeout=30))
    await asyncio.sleep(0)
    await fake_cdp.drop()
    with pytest.raises(CDPDisconnected):
        await asyncio.wait_for(getter, 10)
    await conn.close()


async def test_detached_session_fails_its_pending_calls_only(fake_cdp: FakeCDPServer) -> None:
    fake_cdp.handlers["Never.answer"] = lambda _m: NO_REPLY
    conn = await CDPConnection.connect(fake_cdp.url, call_timeout=60)
    try:
        on_gone = asyncio.ensure_future(conn.send("Never.answer", session_id="GONE"))
        on_other = asyncio.ensure_future(conn.send("Never.answer", session_id="OTHER", timeout=0.5))
        while len(fake_cdp.received) < 2:
            await fake_cdp.wait_for_method("Never.answer")
            await asyncio.sleep(0.01)
        await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "GONE", "targetId": "T"})
        with pytest.raises(CDPSessionClosed):
            await asyncio.wait_for(on_gone, 10)
        with pytest.raises(CDPTimeout):
            await on_other
    finally:
        await conn.close()


async def test_unknown_session_error_is_session_closed(fake_cdp: FakeCDPServer) -> None:
    def no_session(_m: dict) -> dict:
        raise FakeError(-32001, "Session with given id not found.")

    fake_cdp.handlers["Page.reload"] = no_session
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        with pytest.raises(CDPSessionClosed):
            await conn.send("Page.reload", session_id="OLD")
    finally:
        await conn.close()


async def test_garbage_frames_are_ignored(fake_cdp: FakeCDPServer) -> None:
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        await fake_cdp.send_raw("not json {")
        assert await conn.send("Still.works") == {}
    finally:
        await conn.close()


async def test_multi_megabyte_reply_is_received_and_parsed(fake_cdp: FakeCDPServer) -> None:
    nodes = [{"nodeId": str(i), "role": {"value": "button"}, "name": {"value": f"b{i}"}}
             for i in range(60000)]
    fake_cdp.handlers["Accessibility.getFullAXTree"] = lambda _m: {"nodes": nodes}
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        result = await conn.send("Accessibility.getFullAXTree")
        assert len(json.dumps(result)) > 4 * 1024 * 1024
        assert result["nodes"][-1]["name"]["value"] == "b59999"
    finally:
        await conn.close()


def test_large_parse_pauses_the_gc_and_restores_it() -> None:
    import gc

    big = json.dumps([{"a": i} for i in range(100000)])
    assert len(big) > connection_module.LARGE_MESSAGE_CHARS
    assert gc.isenabled()
    assert len(connection_module._parse(big)) == 100000
    assert gc.isenabled()
    with pytest.raises(ValueError):
        connection_module._parse("[" + "1," * 200000)
    assert gc.isenabled()


async def test_events_nobody_listens_to_are_not_parsed(fake_cdp: FakeCDPServer) -> None:
    conn = await CDPConnection.connect(fake_cdp.url)
    try:
        # Not even valid JSON after the method: proof that it was never parsed.
        for _ in range(5):
            await fake_cdp.send_raw('{"method":"Network.dataReceived","params":{broken')
        await conn.send("Sync.barrier")
        assert conn.stats()["skipped_events"] == 5
        async with conn.events("Network.dataReceived") as stream:
            await fake_cdp.emit("Network.dataReceived", {"n": 1})
            assert await stream.get(timeout=5) == ("Network.dataReceived", {"n": 1}, None)
        # Detaches are always handled (they fail the session's pending calls).
        await fake_cdp.emit("Target.detachedFromTarget", {"sessionId": "S"})
        await conn.send("Sync.barrier")
        assert conn.stats()["skipped_events"] == 5
    finally:
        await conn.close()
