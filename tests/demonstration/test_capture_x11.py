"""A person's input captured by desktopd on a real Xvfb: xdotool (another X client injecting
through XTEST, as x11vnc does) is the person, desktopd's own /tablet and /keyboard the agent."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest
import requests

from testbed.capability import have_program, require
from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.xvfb import start_xvfb

pytestmark = pytest.mark.x11


def xdotool(display: str, *argv: str) -> None:
    subprocess.run(["xdotool", *argv], env={"DISPLAY": display, "PATH": "/usr/bin:/bin"}, check=True, timeout=20)


def lines(response: requests.Response) -> list[dict]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


@pytest.fixture
def person(xvfb):
    require(have_program("xdotool"), "xdotool (Debian package xdotool)")
    return lambda *argv: xdotool(xvfb.display, *argv)


def test_person_and_agent_input_become_actions_in_order(desktopd: DesktopdProcess, person) -> None:
    started = desktopd.request("POST", "/api/v1/demonstration/start", json={"typing_idle_ms": 5000})
    assert started.status_code == 200, started.text
    try:
        again = desktopd.request("POST", "/api/v1/demonstration/start", json={})
        assert again.status_code == 409 and again.json()["error"] == "conflict"
        person("mousemove", "100", "120", "click", "1")
        person("type", "--delay", "20", "Ada Lovelace")
        person("key", "ctrl+a")
        agent = desktopd.request("POST", "/api/v1/tablet", json={"action": "click", "x": 300, "y": 310})
        assert agent.status_code == 200, agent.text
        assert desktopd.request("POST", "/api/v1/keyboard", json={"text": "hi"}).status_code == 200
        person("mousemove", "400", "400", "click", "5", "click", "5")
        person("mousemove", "10", "20", "mousedown", "1", "mousemove", "60", "25", "mousemove", "90", "20",
               "mouseup", "1")
    finally:
        stopped = desktopd.request("POST", "/api/v1/demonstration/stop")
    assert stopped.status_code == 200, stopped.text
    got = lines(desktopd.request("GET", "/api/v1/demonstration/actions", params={"follow": "false"}))
    assert got[-1]["end"]["running"] is False
    assert [(a["source"], a["action"]) for a in got[:-1]] == [
        ("person", {"type": "click", "x": 100, "y": 120, "button": "left", "clicks": 1}),
        ("person", {"type": "type", "text": "Ada Lovelace"}),
        ("person", {"type": "keys", "keys": "ctrl+a"}),
        ("agent", {"type": "click", "x": 300, "y": 310, "button": "left", "clicks": 1}),
        ("agent", {"type": "type", "text": "hi"}),
        ("person", {"type": "scroll", "x": 400, "y": 400, "dx": 0, "dy": 2}),
        ("person", {"type": "drag", "path": [[10, 20], [90, 20]], "button": "left"})]
    assert [a["seq"] for a in got[:-1]] == list(range(1, 8))
    assert stopped.json()["by_source"] == {"person": 5, "agent": 2}
    nothing = desktopd.request("POST", "/api/v1/demonstration/stop")
    assert nothing.status_code == 404 and nothing.json()["error"] == "not_found"


def test_a_followed_stream_brings_each_action_as_it_happens(desktopd: DesktopdProcess, person) -> None:
    assert desktopd.request("POST", "/api/v1/demonstration/start", json={}).status_code == 200
    seen: list[dict] = []
    first = threading.Event()

    def follow() -> None:
        with requests.get(desktopd.url + "/api/v1/demonstration/actions", stream=True, timeout=60,
                          headers={"Authorization": f"Bearer {desktopd.token}"} if desktopd.token else {}) as r:
            for line in r.iter_lines():
                if line:
                    seen.append(json.loads(line))
                    if "seq" in seen[-1]:
                        first.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    try:
        person("mousemove", "200", "200", "click", "3")
        assert first.wait(20), seen         # the click arrives while the demonstration still runs
        assert desktopd.request("GET", "/api/v1/demonstration").json()["running"] is True
    finally:
        assert desktopd.request("POST", "/api/v1/demonstration/stop").status_code == 200
    reader.join(20)
    actions = [s for s in seen if "seq" in s]
    assert [a["action"] for a in actions] == [{"type": "click", "x": 200, "y": 200, "button": "right", "clicks": 1}]
    assert "end" in seen[-1]


def test_bad_input_names_the_field(desktopd: DesktopdProcess) -> None:
    bad = desktopd.request("POST", "/api/v1/demonstration/start", json={"max_seconds": -1})
    assert bad.status_code == 422 and bad.json()["field"] == "max_seconds"
    query = desktopd.request("GET", "/api/v1/demonstration/actions", params={"since": "x"})
    assert query.status_code == 422 and query.json()["field"] == "since"


def test_starting_is_refused_cross_site_and_without_the_token(xvfb) -> None:
    server = start_desktopd(xvfb.display, env={"DESKTOPD_TOKEN": "demonstration-token"})
    server.token = None
    try:
        anonymous = server.request("POST", "/api/v1/demonstration/start", json={})
        assert anonymous.status_code == 401, anonymous.text
        server.token = "demonstration-token"
        cross_site = server.request("POST", "/api/v1/demonstration/start", json={},
                                    headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
        assert cross_site.status_code == 403, cross_site.text
        assert server.request("GET", "/api/v1/demonstration").status_code == 404   # none was started
        streamed = requests.get(server.url + "/api/v1/demonstration/actions", timeout=10)
        assert streamed.status_code == 401
    finally:
        server.stop()


def test_unicode_and_dead_keys_are_typed_text_under_the_keymap_in_force(desktopd: DesktopdProcess, xvfb) -> None:
    # xdotool maps a spare keycode for each character the layout lacks and maps it back right
    # after the key: the capture follows the keymap as the stream changes it, never a later read.
    env = {"DISPLAY": xvfb.display, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    assert desktopd.request("POST", "/api/v1/demonstration/start", json={}).status_code == 200
    try:
        subprocess.run(["xdotool", "type", "--delay", "30", "é€ñ"], env=env, check=True, timeout=20)
        subprocess.run(["xdotool", "key", "dead_acute", "a"], env=env, check=True, timeout=20)
        assert desktopd.request("POST", "/api/v1/keyboard", json={"text": "ü€"}).status_code == 200
    finally:
        assert desktopd.request("POST", "/api/v1/demonstration/stop").status_code == 200
    got = lines(desktopd.request("GET", "/api/v1/demonstration/actions", params={"follow": "false"}))
    assert [(a["source"], a["action"]) for a in got[:-1]] == [("person", {"type": "type", "text": "é€ñá"}),
                                                              ("agent", {"type": "type", "text": "ü€"})]


def test_a_server_without_record_is_501_naming_it(tmp_path) -> None:
    server_x = start_xvfb(640, 480, log_path=str(tmp_path / "xvfb.log"), extra_args=("-extension", "RECORD"))
    try:
        server = start_desktopd(server_x.display)
        try:
            response = server.request("POST", "/api/v1/demonstration/start", json={})
            body = response.json()
            assert response.status_code == 501 and body["error"] == "not_supported", body
            assert "no RECORD extension" in body["detail"] and body["feature"] == "X RECORD"
            assert server.request("POST", "/api/v1/demonstration/stop").status_code == 404
        finally:
            server.stop()
    finally:
        server_x.stop()


def test_a_demonstration_whose_x_server_goes_away_ends_saying_why(tmp_path) -> None:
    server_x = start_xvfb(640, 480, log_path=str(tmp_path / "xvfb.log"))
    server = start_desktopd(server_x.display)
    try:
        assert server.request("POST", "/api/v1/demonstration/start", json={}).status_code == 200
        server_x.stop()
        deadline = time.monotonic() + 20
        while server.request("GET", "/api/v1/demonstration").json()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        state = server.request("GET", "/api/v1/demonstration").json()
        assert state["running"] is False and "X connection ended" in state["end_reason"], state
        assert server.request("POST", "/api/v1/demonstration/stop").status_code == 404
        got = lines(server.request("GET", "/api/v1/demonstration/actions", params={"follow": "false"}))
        assert got == [{"end": state}]
    finally:
        server.stop()
        server_x.stop()
