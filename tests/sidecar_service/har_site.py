"""A local page whose network traffic a HAR must show: an XHR answering JSON with a cookie, a
fetch that is redirected, a request that fails (a closed port), and a body bigger than a test's
cap; its title turns "done" once all have settled. /clicks counts a button's fetches."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from aiohttp import web

from .local_site import LocalSite

HAR_SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "testbed" / "har12.schema.json").read_text())
BIG_BYTES = 4096
PAGE = """<!doctype html><title>loading</title><body><button id=go onclick="ping()">Ping</button><script>
let settled = 0;
const step = () => {{ if (++settled === 4) document.title = 'done'; }};
const xhr = new XMLHttpRequest();
xhr.open('GET', '/api/data?x=1&y=two');
xhr.onloadend = step;
xhr.send();
fetch('/redirect').then(r => r.text()).then(step, step);
fetch('{closed}/nothing', {{mode: 'no-cors'}}).then(step, step);
fetch('/api/big').then(r => r.text()).then(step, step);
function ping() {{ fetch('/api/ping', {{method: 'POST', body: 'clicked', headers: {{'Content-Type': 'text/plain'}}}})
  .then(() => {{ document.title = 'pinged'; }}); }}
</script>"""


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class HarSite(LocalSite):
    def __init__(self) -> None:
        super().__init__()
        self.closed = f"http://127.0.0.1:{closed_port()}"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/page", self._page)
        app.router.add_get("/api/data", self._data)
        app.router.add_get("/redirect", self._redirect)
        app.router.add_get("/api/final", self._final)
        app.router.add_get("/api/big", self._big)
        app.router.add_post("/api/ping", self._ping)

    async def _page(self, _request: web.Request) -> web.Response:
        return web.Response(text=PAGE.format(closed=self.closed), content_type="text/html")

    async def _data(self, _request: web.Request) -> web.Response:
        response = web.json_response({"answer": 42})
        response.set_cookie("seen", "yes", path="/")
        return response

    async def _redirect(self, _request: web.Request) -> web.Response:
        raise web.HTTPFound("/api/final")

    async def _final(self, _request: web.Request) -> web.Response:
        return web.Response(text="final")

    async def _big(self, _request: web.Request) -> web.Response:
        return web.Response(text="b" * BIG_BYTES)

    async def _ping(self, request: web.Request) -> web.Response:
        return web.Response(text="pong:" + await request.text())
