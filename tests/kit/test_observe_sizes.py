"""Unit: the Observer asks desktopd for the observation's exact size, and falls back to fitting
it when a desktopd from before exact sizes refuses ``screenshot.width`` (before acting). A local
aiohttp server plays that older desktopd; the real one is exercised in tests/kit/test_env.py."""

from __future__ import annotations

import base64

from aiohttp import web

from desktopd_kit import Desktop
from desktopd_kit.observe import ObserveOptions, Observer
from testbed.threaded_app import ThreadedApp

STEP_ANSWER = {
    "act": None, "executed": None, "text": None, "windows": [], "pointer": {"x": 1, "y": 2, "source": "server"},
    "settled": {"reason": "skipped", "waited_s": 0.0, "changes": 0, "last_change_s": None,
                "settle": 0, "settle_quiet": 0.03},
    "timings": {"act": 0.0, "settle_and_capture": 0.0, "observe": 0.0},
    "screenshot": {"media_type": "image/png", "data": base64.b64encode(b"\x89PNG").decode(), "width": 640,
                   "height": 400, "scale": 0.5, "region": {"x": 0, "y": 0, "width": 1280, "height": 800},
                   "screen": {"width": 1280, "height": 800}},
}


class OlderDesktopd:
    """Refuses a screenshot's width as an unknown field, as desktopd did before exact sizes."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        app = web.Application()
        app.router.add_get("/health", self._health)
        app.router.add_post("/api/v1/step", self._step)
        self.server = ThreadedApp(app)

    async def _health(self, _request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "screen": {"width": 1280, "height": 800}})

    async def _step(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        if "width" in (body.get("screenshot") or {}):
            return web.json_response({"error": "invalid_field", "field": "screenshot.width",
                                      "detail": "screenshot.width: unknown field"}, status=422)
        return web.json_response(STEP_ANSWER)


def test_an_older_desktopd_is_asked_to_fit_the_size_instead():
    server = OlderDesktopd()
    desktop = Desktop(server.server.start().url)
    try:
        observer = Observer(desktop, ObserveOptions(screenshot_size=(640, 480), settle_s=0))
        first = observer.observe()
        second = observer.observe()
    finally:
        desktop.close()
        server.server.stop()
    shots = [body["screenshot"] for body in server.bodies]
    assert shots[0] == {"format": "png", "width": 640, "height": 480}
    assert shots[1:] == [{"format": "png", "max_width": 640, "max_height": 480}] * 2   # remembered
    assert first.screenshot.y_scale == second.screenshot.scale == 0.5
