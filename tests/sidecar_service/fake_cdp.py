"""A scriptable fake CDP WebSocket server, for the connection's unit tests only.

It answers calls with handlers the test installs (default: an empty result), records every
message it receives, and can push events or drop the socket on demand.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

# A handler gets the request message and returns the reply's "result", or raises FakeError;
# returning NO_REPLY leaves the call unanswered (to test timeouts).
NO_REPLY = object()


class FakeError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class FakeCDPServer:
    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[dict], Any]] = {}
        self.received: list[dict] = []
        self.sockets: list[web.WebSocketResponse] = []
        self.got_message = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/devtools/browser/fake", self._ws)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"ws://127.0.0.1:{port}/devtools/browser/fake"

    async def stop(self) -> None:
        await self.drop()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.sockets.append(ws)
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            message = json.loads(msg.data)
            self.received.append(message)
            self.got_message.set()
            await self._answer(ws, message)
        return ws

    async def _answer(self, ws: web.WebSocketResponse, message: dict) -> None:
        handler = self.handlers.get(message["method"], lambda _m: {})
        reply: dict[str, Any] = {"id": message["id"]}
        if "sessionId" in message:
            reply["sessionId"] = message["sessionId"]
        try:
            result = handler(message)
            if asyncio.iscoroutine(result):
                result = await result
        except FakeError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
        else:
            if result is NO_REPLY:
                return
            reply["result"] = result
        if not ws.closed:
            await ws.send_str(json.dumps(reply))

    async def emit(self, method: str, params: dict | None = None, session_id: str | None = None) -> None:
        event: dict[str, Any] = {"method": method, "params": params or {}}
        if session_id is not None:
            event["sessionId"] = session_id
        for ws in self.sockets:
            if not ws.closed:
                await ws.send_str(json.dumps(event))

    async def send_raw(self, text: str) -> None:
        for ws in self.sockets:
            if not ws.closed:
                await ws.send_str(text)

    async def drop(self) -> None:
        """Close every socket, as a dying Chromium would."""
        for ws in self.sockets:
            if not ws.closed:
                await ws.close()

    async def wait_for_method(self, method: str, timeout: float = 5.0) -> dict:
        async def find() -> dict:
            while True:
                for message in self.received:
                    if message["method"] == method:
                        return message
                self.got_message.clear()
                await self.got_message.wait()
        return await asyncio.wait_for(find(), timeout)
