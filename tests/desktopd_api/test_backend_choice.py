"""One API over two backends: what a backend lacks is a 501 naming it, and DESKTOPD_BACKEND
chooses the backend (unit tests over the fake desktop)."""

from __future__ import annotations

import pytest

from desktopd.app import init_app
from desktopd.backend.protocol import Unsupported
from desktopd.settings import Settings, SettingsError, parse_settings

from .fake_desktop import FAKE_ERRORS, FakeDesktop, unwatched_settler


class SwayLikeDesktop(FakeDesktop):
    """The fake desktop saying it is the Sway backend, and lacking the clipboard."""

    backend = "sway"

    def clipboard_get(self, timeout: float = 2.0) -> str | None:
        raise Unsupported(self.backend, "the clipboard")


@pytest.fixture
async def sway_client(aiohttp_client):
    desktop = SwayLikeDesktop(":99")
    app = init_app(Settings(display=":99"), desktop_factory=lambda display: desktop,
                   x_errors=FAKE_ERRORS, settler_factory=unwatched_settler)
    return await aiohttp_client(app)


async def test_a_feature_the_backend_lacks_is_501_naming_the_backend(sway_client) -> None:
    response = await sway_client.get("/api/v1/clipboard")
    assert response.status == 501
    body = await response.json()
    assert body["error"] == "not_supported" and body["backend"] == "sway"
    assert "sway" in body["detail"] and body["feature"] == "the clipboard"


async def test_recording_is_501_on_sway(sway_client) -> None:
    response = await sway_client.post("/api/v1/recording/start", json={})
    assert response.status == 501
    body = await response.json()
    assert body["backend"] == "sway" and "x11grab" in body["feature"]


async def test_the_501_is_in_the_openapi_document(sway_client) -> None:
    document = await (await sway_client.get("/api/v1/openapi.json")).json()
    assert "501" in document["paths"]["/api/v1/recording/start"]["post"]["responses"]


def test_desktopd_backend_chooses_the_backend_and_its_display() -> None:
    settings = parse_settings([], {"DESKTOPD_BACKEND": "sway", "WAYLAND_DISPLAY": "wayland-7",
                                   "DISPLAY": ":3"})
    assert (settings.backend, settings.backend_display) == ("sway", "wayland-7")
    assert parse_settings([], {"DISPLAY": ":3"}).backend_display == ":3"


def test_an_unknown_backend_is_refused_by_name() -> None:
    with pytest.raises(SettingsError, match="DESKTOPD_BACKEND"):
        parse_settings([], {"DESKTOPD_BACKEND": "weston"})
