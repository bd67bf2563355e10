"""A local stand-in for the vision model services, speaking their real wire formats (the real
services are not reachable from here): POST /v1/messages (Anthropic), /v1/responses (OpenAI
Responses) and /v1/chat/completions (OpenAI-compatible chat). Each path answers from its own
script of replies, in order, and records every request. A reply of HANG never answers: the
server waits until its client hangs up and records that (the act loop's cancellation)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from typing import Any

from aiohttp import web

from testbed.threaded_app import ThreadedApp

HANG = "hang"
PATHS = ("/v1/messages", "/v1/responses", "/v1/chat/completions")


class VendorServer:
    def __init__(self) -> None:
        self.scripts: dict[str, list[Any]] = defaultdict(list)
        self.repeat: dict[str, Any] = {}          # answered once a script is used up
        self.requests: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.headers: dict[str, list[dict[str, str]]] = defaultdict(list)
        self.hung_up = threading.Event()
        app = web.Application(client_max_size=64 << 20)
        for path in PATHS:
            app.router.add_post(path, self._answer)
        self._server = ThreadedApp(app).start()

    @property
    def url(self) -> str:
        return self._server.url

    def script(self, path: str, *replies: Any, then: Any = None) -> None:
        self.scripts[path] = list(replies)
        self.requests[path].clear()
        self.headers[path].clear()
        if then is None:
            self.repeat.pop(path, None)
        else:
            self.repeat[path] = then

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        self.requests[request.path].append(await request.json())
        self.headers[request.path].append(dict(request.headers))
        script = self.scripts[request.path]
        reply = script.pop(0) if script else self.repeat.get(request.path)
        if reply == HANG:
            while request.transport is not None and not request.transport.is_closing():
                await asyncio.sleep(0.02)
            self.hung_up.set()
            return web.Response(status=499)
        if reply is None:
            return web.json_response({"error": "the test scripted no reply"}, status=500)
        if isinstance(reply, str):
            return web.Response(text=reply, content_type="application/json")
        return web.json_response(reply)

    def stop(self) -> None:
        self._server.stop()


def wait_for(predicate: Any, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
