"""How the agent layer reads desktopd's errors: an off-screen point is recognised by desktopd's
``reason`` member, not by the wording of its message (unit: desktopd's answer is served by a small
aiohttp app; desktopd's own side is checked on its validation function)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from desktopd.input.models import POINTER_EVENT
from desktopd.input.pointer_events import check_on_screen
from httpapi.errors import ApiError
from sidecar.agent.pointer import VisibleInput, desktopd_client
from testbed.served_app import served


@pytest.fixture
async def desktopd_answering() -> AsyncIterator[tuple[list[dict[str, object]], str]]:
    """A server answering each POST with the next queued (status, body); its base URL."""
    answers: list[dict[str, object]] = []

    async def handler(request: web.Request) -> web.Response:
        answer = answers.pop(0)
        return web.json_response(answer["body"], status=int(str(answer["status"])))

    async with served([web.post("/api/v1/tablet", handler), web.post("/api/v1/keyboard", handler)]) as url:
        yield answers, url


async def test_off_screen_is_told_by_its_reason_not_its_wording(desktopd_answering) -> None:
    answers, url = desktopd_answering
    client = desktopd_client(url, None)
    pointer = VisibleInput(client)
    try:
        # Worded differently from today's message: only the reason says what it is.
        answers.append({"status": 422, "body": {"error": "invalid_field", "detail": "x: 2000 beyond 1279",
                                                "field": "x", "reason": "off_screen"}})
        with pytest.raises(ApiError) as caught:
            await pointer.move(2000, 1)
        assert (caught.value.status, caught.value.error, caught.value.field) == (409, "off_screen", "ref")
        # A malformed field that merely mentions the words is desktopd's error, not an off-screen point.
        answers.append({"status": 422, "body": {"error": "invalid_field", "field": "action",
                                                "detail": "action: 'off screen' is not one of move, click"}})
        with pytest.raises(ApiError) as caught:
            await pointer.click(5, 5, "left", 1, ())
        assert (caught.value.status, caught.value.error) == (502, "desktopd_error")
        assert caught.value.body()["detail"]["path"] == "/api/v1/tablet"
    finally:
        await client.close()


async def test_visible_input_reaches_desktopd_with_its_token_and_bodies() -> None:
    """The events visible mode sends, as desktopd receives them (and the bearer token)."""
    seen: list[tuple[str, str | None, object]] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append((request.path, request.headers.get("Authorization"), await request.json()))
        return web.json_response({"x": 1, "y": 2})

    async with served([web.post("/api/v1/tablet", handler), web.post("/api/v1/keyboard", handler)]) as url:
        client = desktopd_client(url, "s3cret")
        try:
            pointer = VisibleInput(client)
            await pointer.click(10.4, 20.6, "right", 2, ("ctrl",))
            await pointer.drag((1, 2), (30, 40))
            await pointer.type_text("hé", slowly=True)
        finally:
            await client.close()
    assert seen == [
        ("/api/v1/tablet", "Bearer s3cret", {"events": [
            {"action": "move", "x": 10, "y": 21},
            {"action": "click", "button": "right", "clicks": 2, "modifiers": ["ctrl"]}]}),
        ("/api/v1/tablet", "Bearer s3cret", {"action": "drag", "path": [[1, 2], [30, 40]], "button": "left",
                                             "duration_ms": 300}),
        ("/api/v1/keyboard", "Bearer s3cret", {"text": "hé", "delay_ms": 40})]


async def test_an_unreachable_desktopd_is_503_and_not_retried(desktopd_answering) -> None:
    answers, url = desktopd_answering
    client = desktopd_client(url, None)
    try:
        # A 503 from desktopd itself is desktopd's error (502 here), asked once: a write is never repeated.
        answers.extend([{"status": 503, "body": {"error": "busy", "detail": "later"}},
                        {"status": 200, "body": {}}])
        with pytest.raises(ApiError) as caught:
            await VisibleInput(client).move(1, 1)
        assert (caught.value.status, caught.value.error, len(answers)) == (502, "desktopd_error", 1)
    finally:
        await client.close()
    closed = desktopd_client("http://127.0.0.1:9", None)   # the discard port: nothing listens
    try:
        with pytest.raises(ApiError) as caught:
            await VisibleInput(closed).move(1, 1)
        assert (caught.value.status, caught.value.error) == (503, "desktopd_unavailable")
    finally:
        await closed.close()


@pytest.mark.parametrize("event, field", [
    ({"x": 1280, "y": 0}, "events[0].x"),
    ({"x": 0, "y": 800}, "events[0].y"),
    ({"action": "drag", "path": [[0, 0], [1300, 5]]}, "events[0].path[1]"),
])
def test_desktopd_gives_off_screen_points_their_reason(event: dict[str, object], field: str) -> None:
    validated = POINTER_EVENT.validate(event)     # what the check is given: every field present
    with pytest.raises(ApiError) as caught:
        check_on_screen([validated], ["events[0]"], (1280, 800))
    body = caught.value.body()
    assert (caught.value.status, body["error"], body["field"], body["reason"]) == \
        (422, "invalid_field", field, "off_screen")
