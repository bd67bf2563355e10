"""The start pages over http on loopback (--start-pages DIR).

The images used to open ``file:///usr/share/desktopd/start.html``. A ``file:`` URL has no host,
and CDP clients with a domain policy take such a page for a foreign one: browser-use closes it on
connecting, which (the browser's only page) ended Chromium. Served as
``http://127.0.0.1:8124/start.html`` the page is an ordinary local site.

Only GET and HEAD of files in the directory, on 127.0.0.1 only (Chromium runs beside the
sidecar); a port of its own, so its pages are not same-origin with the sidecar's API, whose
browser guard lets same-origin requests through. No token: the pages are the image's own files.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

from aiohttp import web

log = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"


def start_pages_app(directory: str) -> web.Application:
    app = web.Application()
    app.router.add_static("/", directory, show_index=False, follow_symlinks=False)
    return app


def serve_start_pages(directory: str, port: int) -> Callable[[web.Application], AsyncIterator[None]]:
    """A cleanup context for the sidecar's app, placed before Chromium's so the pages are served
    when Chromium opens them. A taken port is logged, not fatal: the browser still starts."""

    async def context(_app: web.Application) -> AsyncIterator[None]:
        runner = web.AppRunner(start_pages_app(directory), handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, LOOPBACK, port).start()
            log.info("start pages of %s on http://%s:%d/", directory, LOOPBACK, port)
        except OSError as exc:
            log.error("cannot serve the start pages on %s:%d: %s", LOOPBACK, port, exc)
        try:
            yield
        finally:
            await runner.cleanup()

    return context
