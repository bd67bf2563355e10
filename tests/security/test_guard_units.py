"""The browser guard (httpapi/guard.py) on each header it reads, through both daemons' real
applications (aiohttp's test server: no X display or Chromium needed for a refusal)."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient

from desktopd.app import init_app as desktopd_app
from desktopd.settings import parse_settings as desktopd_settings
from httpapi.guard import GuardSettings, guard_problem, host_name
from sidecar.server.app import init_app as sidecar_app
from sidecar.settings import parse_settings as sidecar_settings
from tests.desktopd_api.fake_desktop import FAKE_ERRORS, FakeDesktop, unwatched_settler


@pytest.fixture
async def desktopd(aiohttp_client):
    settings = desktopd_settings(["--display", ":99", "--allowed-host", "desk.example", "--allowed-host",
                                  ".pods.example", "--allowed-origin", "https://console.example"], {})
    return await aiohttp_client(desktopd_app(settings, desktop_factory=lambda display: FakeDesktop(display),
                                             x_errors=FAKE_ERRORS, settler_factory=unwatched_settler))


def own_origin(client: TestClient) -> str:
    return f"http://{client.host}:{client.port}"


EXECUTE = "/api/v1/execute"
BODY = '{"command": ["true"]}'


@pytest.mark.parametrize("headers", [
    {"Host": "evil.example"},
    {"Host": "evil.example:8080"},
    {"Host": "127.0.0.1.evil.example"},
    {"Host": "localhost.evil.example"},
    {"Host": ""},
])
async def test_a_foreign_host_is_refused_on_every_route_even_health(desktopd, headers) -> None:
    for method, path in (("GET", "/health"), ("GET", "/api/v1/screenshot"), ("POST", EXECUTE)):
        response = await desktopd.request(method, path, headers=headers, data=BODY if method == "POST" else None)
        assert response.status == 421, (path, await response.text())
        body = await response.json()
        assert body["error"] == "misdirected_request" and body["field"] == "Host"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:9", "localhost:8080", "[::1]:8080", "10.1.2.3",
                                  "desk.example", "DESK.example:80", "desktop-0.pods.example"])
async def test_addresses_loopback_names_and_configured_hosts_are_served(desktopd, host) -> None:
    response = await desktopd.get("/health", headers={"Host": host})
    assert response.status in (200, 503), await response.text()   # served (503: the fake's X state)


@pytest.mark.parametrize("headers,field", [
    ({"Origin": "http://evil.example"}, "Origin"),
    ({"Origin": "null"}, "Origin"),
    ({"Origin": "http://127.0.0.1:1"}, "Origin"),            # another local port is another origin
    ({"Sec-Fetch-Site": "cross-site"}, "Sec-Fetch-Site"),
    ({"Sec-Fetch-Site": "same-site"}, "Sec-Fetch-Site"),
])
async def test_requests_from_other_origins_are_refused_reads_too(desktopd, headers, field) -> None:
    for method, path in (("GET", "/api/v1/screenshot"), ("POST", EXECUTE)):
        response = await desktopd.request(method, path, headers={**headers, "Content-Type": "application/json"},
                                          data=BODY if method == "POST" else None)
        assert response.status == 403, (path, await response.text())
        assert (await response.json())["field"] == field


async def test_same_origin_typed_urls_and_allowed_origins_pass(desktopd) -> None:
    for headers in ({"Origin": own_origin(desktopd), "Sec-Fetch-Site": "same-origin"},
                    {"Sec-Fetch-Site": "none"},
                    {"Origin": "https://console.example", "Sec-Fetch-Site": "cross-site"}):
        response = await desktopd.get("/api/v1/openapi.json", headers=headers)
        assert response.status == 200, (headers, await response.text())


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                          "application/octet-stream", None])
async def test_bodies_must_be_json(desktopd, content_type) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = await desktopd.post(EXECUTE, data=BODY.encode(), headers=headers, skip_auto_headers=["Content-Type"])
    assert response.status == 415, await response.text()
    assert (await response.json())["field"] == "Content-Type"


async def test_an_empty_form_post_is_refused_by_its_media_type(desktopd) -> None:
    response = await desktopd.post("/api/v1/windows/1/close", data=b"",
                                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status == 415


async def test_clipboard_put_may_be_text_but_post_of_text_may_not(desktopd) -> None:
    ok = await desktopd.put("/api/v1/clipboard", data="héllo".encode(), headers={"Content-Type": "text/plain"})
    assert ok.status != 415, await ok.text()
    refused = await desktopd.post("/api/v1/keyboard", data=b'{"text": "x"}', headers={"Content-Type": "text/plain"})
    assert refused.status == 415


async def test_the_sidecar_has_the_same_guard(aiohttp_client) -> None:
    app = sidecar_app(sidecar_settings(["--headless", "--port", "0"], {}))
    app.cleanup_ctx.clear()   # no Chromium: a refusal happens before any route needs it
    client = await aiohttp_client(app)
    assert (await client.get("/layout", headers={"Host": "evil.example"})).status == 421
    assert (await client.get("/layout", headers={"Sec-Fetch-Site": "cross-site"})).status == 403
    response = await client.post("/tabs", data=b'{"url": "about:blank"}', headers={"Content-Type": "text/plain"})
    assert response.status == 415


def test_host_names_are_read_without_port_or_brackets() -> None:
    assert host_name("LocalHost:8080") == "localhost"
    assert host_name("[::1]:80") == "::1"
    assert host_name("::1") == "::1"
    assert GuardSettings(("a.example",)).host_allowed("a.example:1")
    assert not GuardSettings(("a.example",)).host_allowed("b.a.example")
    assert GuardSettings((".a.example",)).host_allowed("b.a.example")


@pytest.mark.parametrize("hosts,origins,ok", [
    ((), ("https://x.example",), True), ((), ("https://x.example:8443",), True),
    ((), ("x.example",), False), ((), ("https://x.example/path",), False),
    (("x.example",), (), True), (("http://x.example",), (), False), (("x.example:80",), (), False),
])
def test_settings_are_checked(hosts, origins, ok) -> None:
    assert (guard_problem(hosts, origins) is None) is ok


async def test_deeply_nested_json_is_a_400_in_both_daemons(desktopd, aiohttp_client) -> None:
    deep = "[" * 1000 + "]" * 1000
    nested = '{"text": ' + deep + "}"
    response = await desktopd.post("/api/v1/keyboard", data=nested, headers={"Content-Type": "application/json"})
    assert response.status == 400 and "nested deeper" in (await response.json())["detail"]
    moderate = '{"text": ' + "[" * 40 + "]" * 40 + "}"      # parses, but deeper than any request of ours
    response = await desktopd.post("/api/v1/keyboard", data=moderate, headers={"Content-Type": "application/json"})
    assert response.status == 400
    app = sidecar_app(sidecar_settings(["--headless", "--port", "0"], {}))
    app.cleanup_ctx.clear()
    client = await aiohttp_client(app)
    response = await client.post("/tabs", data='{"url": ' + deep + "}", headers={"Content-Type": "application/json"})
    assert response.status == 400 and (await response.json())["error"] == "bad_request"
