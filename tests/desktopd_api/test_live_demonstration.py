"""The demonstration endpoints on both real backends: X11 captures, Sway says 501 naming why
(a Wayland compositor shows no client another client's input)."""

from __future__ import annotations

from .conftest import LiveDesktop

ENDPOINTS = [("POST", "/api/v1/demonstration/start"), ("POST", "/api/v1/demonstration/stop"),
             ("GET", "/api/v1/demonstration"), ("GET", "/api/v1/demonstration/actions")]


def test_a_demonstration_runs_on_x11_and_is_501_naming_the_reason_on_sway(live: LiveDesktop) -> None:
    if live.backend == "sway":
        for method, path in ENDPOINTS:
            response = live.desktopd.request(method, path, **({"json": {}} if method == "POST" else {}))
            body = response.json()
            assert response.status_code == 501, (path, body)
            assert body["error"] == "not_supported" and body["backend"] == "sway"
            assert "X RECORD" in body["feature"] and "Wayland" in body["feature"]
        return
    started = live.desktopd.request("POST", "/api/v1/demonstration/start", json={"max_seconds": 60})
    assert started.status_code == 200, started.text
    stopped = live.desktopd.request("POST", "/api/v1/demonstration/stop")
    assert stopped.status_code == 200 and stopped.json()["running"] is False
