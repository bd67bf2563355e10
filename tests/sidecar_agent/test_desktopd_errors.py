"""How the agent layer reads desktopd's errors: an off-screen point is recognised by desktopd's
``reason`` member, not by the wording of its message (unit: desktopd's answer is served by a small
aiohttp app; desktopd's own side is checked on its validation function)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from desktopd.input.pointer_events import check_on_screen
from httpapi.errors import ApiError
from sidecar.agent.pointer import DesktopdClient


@pytest.fixture
async def desktopd_answering() -> AsyncIterator[tuple[list[dict[str, object]], str]]:
    """A server answering each POST with the next queued (status, body); its base URL."""
    answers: list[dict[str, object]] = []

    async def handler(request: web.Request) -> web.Response:
        answer = answers.pop(0)
        return web.json_response(answer["body"], status=int(str(answer["status"])))

    app = web.Application()
    app.router.add_post("/api/v1/tablet", handler)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield answers, str(server.make_url("")).rstrip("/")
    finally:
        await server.close()


async def test_off_screen_is_told_by_its_reason_not_its_wording(desktopd_answering) -> None:
    answers, url = desktopd_answering
    client = DesktopdClient(url, None)
    try:
        # Worded differently from today's message: only the reason says what it is.
        answers.append({"status": 422, "body": {"error": "invalid_field", "detail": "x: 2000 beyond 1279",
                                                "field": "x", "reason": "off_screen"}})
        with pytest.raises(ApiError) as caught:
            await client.post("/api/v1/tablet", {"action": "move", "x": 2000, "y": 1})
        assert (caught.value.status, caught.value.error, caught.value.field) == (409, "off_screen", "ref")
        # A malformed field that merely mentions the words is desktopd's error, not an off-screen point.
        answers.append({"status": 422, "body": {"error": "invalid_field", "field": "action",
                                                "detail": "action: 'off screen' is not one of move, click"}})
        with pytest.raises(ApiError) as caught:
            await client.post("/api/v1/tablet", {"action": "off screen"})
        assert (caught.value.status, caught.value.error) == (502, "desktopd_error")
    finally:
        await client.close()


@pytest.mark.parametrize("event, field", [
    ({"x": 1280, "y": 0}, "events[0].x"),
    ({"x": 0, "y": 800}, "events[0].y"),
    ({"action": "drag", "path": [[0, 0], [1300, 5]]}, "events[0].path[1]"),
])
def test_desktopd_gives_off_screen_points_their_reason(event: dict[str, object], field: str) -> None:
    with pytest.raises(ApiError) as caught:
        check_on_screen([event], ["events[0]"], (1280, 800))
    body = caught.value.body()
    assert (caught.value.status, body["error"], body["field"], body["reason"]) == \
        (422, "invalid_field", field, "off_screen")
