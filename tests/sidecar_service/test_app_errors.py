"""HTTP error mapping and auth of the sidecar app (no Chromium needed: it points at a missing one)."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from httpapi.middlewares import error_middleware
from sidecar.server import app_keys as keys
from sidecar.server.app import domain_error_middleware, init_app
from sidecar.cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from sidecar.browser.supervisor import ChromiumUnavailable
from sidecar.errors import (HTTP_FORMS, LayoutUnavailable, NavigationPending, PageChanging,
                            RendererCrashed, TabNotFound, TabUnresponsive)
from sidecar.settings import Settings
from sidecar.state.har import HarStateError
from sidecar.state.profiles import ProfileError, ProfileInUse, ProfileMissing
from sidecar.state.storage_state import StateRefused


# One row per entry of sidecar/errors.py's table (docs/sidecar.md lists the same).
ROWS = [
    (TabNotFound("abc"), 404, "tab_not_found"),
    (ProfileMissing("no profile named 'x'", "name"), 404, "profile_not_found"),
    (ProfileInUse("profile 'x' is in use by another browser"), 409, "profile_in_use"),
    (ProfileError("named profiles are not configured"), 422, "invalid_field"),
    (StateRefused("cookies[3]", "Chromium refused this cookie"), 422, "invalid_field"),
    (HarStateError("no HAR capture is running"), 409, "har_state"),
    (CDPSessionClosed("the target detached", method="DOMSnapshot.captureSnapshot"), 409, "tab_closed"),
    (PageChanging("the page kept changing"), 409, "tab_changing"),
    (ChromiumUnavailable("Chromium is starting"), 503, "chromium_unavailable"),
    (CDPDisconnected("socket gone", method="DOM.getDocument"), 503, "chromium_unavailable"),
    (RendererCrashed("crashed"), 503, "renderer_crashed"),
    (TabUnresponsive("no layout within 8 s"), 503, "tab_unresponsive"),
    (NavigationPending("the tab is loading http://127.0.0.1:9/"), 503, "navigation_pending"),
    (LayoutUnavailable("Frame not found"), 503, "layout_unavailable"),
    (CDPTimeout("no reply within 10 s", method="Accessibility.getFullAXTree"), 504, "cdp_timeout"),
    (CDPError("No node with given id", code=-32000, method="DOM.getBoxModel"), 502, "cdp_error"),
]


def test_every_row_of_the_table_is_tested() -> None:
    assert {kind for kind, _form in HTTP_FORMS} == {type(exc) for exc, _s, _e in ROWS}
    assert [(form.status, form.code) for _kind, form in HTTP_FORMS] == [(s, e) for _x, s, e in ROWS]


@pytest.mark.parametrize("exc, status, error", ROWS, ids=[e for _x, _s, e in ROWS])
async def test_domain_failures_become_json_with_a_meaningful_status(aiohttp_client, exc: Exception,
                                                                    status: int, error: str) -> None:
    async def failing(_request: web.Request) -> web.Response:
        raise exc

    app = web.Application(middlewares=[error_middleware, domain_error_middleware])
    app.router.add_get("/x", failing)
    client = await aiohttp_client(app)
    response = await client.get("/x")
    assert response.status == status
    body = await response.json()
    assert body["error"] == error and body["detail"]
    if status == 503:
        assert response.headers["Retry-After"] == "1"


def missing_chromium_settings(**overrides) -> Settings:
    base = dict(headless=True, chromium_path="/nonexistent/chromium", restart_backoff=30.0,
                display=None)
    base.update(overrides)
    return Settings(**base)


async def test_without_chromium_health_is_degraded_and_api_says_503(aiohttp_client) -> None:
    app = init_app(missing_chromium_settings())
    client = await aiohttp_client(app)
    supervisor = app[keys.SUPERVISOR]
    await supervisor.wait_until("degraded", 10)
    response = await client.get("/health")
    assert response.status == 503
    body = await response.json()
    assert body["status"] == "degraded" and body["cdp_connected"] is False and body["pid"] is None
    assert "/nonexistent/chromium" in body["last_error"]
    for path in ("/tabs", "/targets", "/layout"):
        response = await client.get(path)
        assert response.status == 503, path
        body = await response.json()
        assert body["error"] == "chromium_unavailable", body
        if path == "/layout":
            assert body["tabs"] == []         # the original schema requires "tabs" even then


async def test_health_is_open_and_everything_else_needs_the_token(aiohttp_client) -> None:
    client = await aiohttp_client(init_app(missing_chromium_settings(token="s3cret")))
    assert (await client.get("/health")).status in (200, 503)
    for method, path in (("GET", "/tabs"), ("GET", "/layout"), ("POST", "/tabs"),
                         ("DELETE", "/tabs/x"), ("POST", "/tabs/x/navigate")):
        response = await client.request(method, path)
        assert response.status == 401, path
        assert (await response.json())["error"] == "unauthorized"
    response = await client.get("/tabs", headers={"Authorization": "Bearer s3cret"})
    assert response.status == 503


async def test_starting_before_the_first_connect() -> None:
    from sidecar.browser.supervisor import ChromiumSupervisor

    supervisor = ChromiumSupervisor(missing_chromium_settings())
    assert supervisor.status == "starting"
    assert (await supervisor.health())["status"] == "starting"
    with pytest.raises(ChromiumUnavailable, match="starting"):
        supervisor.current()
    await asyncio.sleep(0)
