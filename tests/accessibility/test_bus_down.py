"""No accessibility bus, or one that goes away: a clear 503 (never a hang or a 500), and the tree
comes back once a bus is there again."""

from __future__ import annotations

import pytest

from desktopd.accessibility.session import start_session
from testbed.capability import have_program, require
from testbed.desktopd import start_desktopd

pytestmark = pytest.mark.x11


def test_no_session_bus_is_a_503(xvfb, tmp_path):
    env = {"DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/nothing-here", "AT_SPI_BUS_ADDRESS": ""}
    server = start_desktopd(xvfb.display, env=env)
    try:
        resp = server.request("GET", "/api/v1/accessibility")
        assert resp.status_code == 503 and resp.headers.get("Retry-After") == "1"
        assert resp.json()["error"] == "unavailable" and "accessibility bus" in resp.json()["detail"]
        resp = server.request("POST", "/api/v1/accessibility/atspi:1.5:3/do", json={"action": "click"})
        assert resp.status_code == 503
        assert server.request("GET", "/health").status_code == 200  # the rest of desktopd is fine
    finally:
        server.stop()


def test_bus_that_stops_is_a_503_then_recovers(xvfb, tmp_path):
    require(have_program("dbus-daemon"), "dbus-daemon (see scripts/lib.sh NATIVE_PACKAGES)")
    socket_path = str(tmp_path / "session-bus")
    session = start_session(xvfb.display, str(tmp_path), socket_path=socket_path)
    server = start_desktopd(xvfb.display, env=session.env())
    try:
        assert server.request("GET", "/api/v1/accessibility").status_code == 200
        session.stop()
        resp = server.request("GET", "/api/v1/accessibility")
        assert resp.status_code == 503, resp.text
        assert "accessibility bus" in resp.json()["detail"]
        session = start_session(xvfb.display, str(tmp_path), socket_path=socket_path)
        assert server.request("GET", "/api/v1/accessibility").status_code == 200
    finally:
        server.stop()
        session.stop()
