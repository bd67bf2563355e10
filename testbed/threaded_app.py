"""An aiohttp application served on a loopback port from a thread of its own, so that
synchronous tests (and their synchronous clients) can talk to a stand-in server."""

from __future__ import annotations

import asyncio
import socket
import threading

from aiohttp import web


class ThreadedApp:
    def __init__(self, app: web.Application) -> None:
        self._app = app
        self._loop = asyncio.new_event_loop()
        self._runner = web.AppRunner(app)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ThreadedApp:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the local server did not start")
        return self

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._runner.setup())
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        self._loop.run_until_complete(web.SockSite(self._runner, listener).start())
        self._ready.set()
        self._loop.run_forever()

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
