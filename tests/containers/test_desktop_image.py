"""The desktop image: healthy, an XFCE desktop on screen, noVNC and VNC with a password, execute
as the non-root user, and a dead X server stopping the container (never healthy-but-dead)."""

from __future__ import annotations

import io
import json
import re
import socket
import time

import pytest
import requests
from PIL import Image
from websockets.sync.client import connect

from .support import Desktop, NotReady, recv_exact, remove, start_desktop, vnc_login, wait_exit

XFCE_CLASSES = ("xfce4-panel", "xfdesktop")


def wait_for_xfce(desktop: Desktop, timeout: float = 60) -> list[dict]:
    """The session's panel and desktop windows, once XFCE has mapped them (bounded poll)."""
    deadline = time.monotonic() + timeout
    found: list[dict] = []
    while time.monotonic() < deadline:
        response = desktop.get(8080, "/api/v1/tree")
        assert response.status_code == 200, response.text
        body = response.json()
        windows = body["windows"] if isinstance(body, dict) else body
        found = [w for w in windows if any(c in json.dumps(w.get("wm_class")).lower() for c in XFCE_CLASSES)]
        if {c for c in XFCE_CLASSES if any(c in json.dumps(w.get("wm_class")).lower() for w in found)} == set(XFCE_CLASSES):
            return found
        time.sleep(0.5)
    raise NotReady(f"no XFCE panel and desktop windows after {timeout}s (found {found}):\n{desktop.logs()}")


def test_health_reports_the_display(desktop: Desktop) -> None:
    response = requests.get(desktop.url(8080, "/health"), timeout=10)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ok"
    assert body["screen"] == {"width": 1920, "height": 1080}


def test_api_needs_the_token(desktop: Desktop) -> None:
    response = requests.get(desktop.url(8080, "/api/v1/tree"), timeout=10)
    assert response.status_code == 401
    assert response.json()["error"] == "unauthorized"
    assert desktop.get(8080, "/api/v1/tree").status_code == 200
    # The token given in the environment reaches desktopd through a 0600 file, and the desktop
    # session (which every app started on the desktop inherits) does not carry it.
    code, env = desktop.exec_in("sh", "-c", "tr '\\0' '\\n' </proc/$(pgrep -x xfce4-session)/environ")
    assert code == 0 and "DESKTOPD_TOKEN_FILE=/run/desktop/" in env, env
    assert desktop.token not in env and "VNC_PASSWORD=" not in env


# The environments of PID 1 and its descendants (not of `docker exec` processes, which Docker
# starts with the container's configured environment, beside the process tree).
ENVIRONMENTS = """
import os
parents = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        status = open(f"/proc/{pid}/status").read()
    except OSError:
        continue
    parents[int(pid)] = int(status.split("PPid:")[1].split()[0])
def in_tree(pid):
    while pid not in (0, 1):
        pid = parents.get(pid, 0)
    return pid == 1
for pid in sorted(parents):
    if in_tree(pid):
        try:
            entries = open(f"/proc/{pid}/environ", "rb").read().split(b"\\0")
        except OSError:
            continue
        for entry in entries:
            print(f"{pid}: {entry.decode(errors='replace')}")
"""


def test_no_process_carries_a_secret_in_its_environment(desktop: Desktop) -> None:
    # /proc/1/environ included: PID 1 re-executed itself without the secrets (desktop-entry).
    code, found = desktop.exec_in("python3", "-c", ENVIRONMENTS)   # as the desktop user, as an app would
    assert code == 0 and "1: DESKTOPD_TOKEN_FILE=/run/desktop/" in found, found[:2000]
    assert len({line.split(":")[0] for line in found.splitlines()}) > 10   # the whole desktop was read
    assert desktop.token not in found
    assert desktop.vnc_password not in found


def test_no_setuid_or_setgid_programs_remain(desktop: Desktop) -> None:
    code, found = desktop.exec_in("find", "/", "-xdev", "-type", "f", "-perm", "/6000", user="root")
    assert code == 0 and found.strip() == "", found


def test_screenshot_shows_the_xfce_desktop(desktop: Desktop) -> None:
    wait_for_xfce(desktop)
    response = desktop.get(8080, "/api/v1/screenshot", params={"format": "png"})
    assert response.status_code == 200, response.text
    image = Image.open(io.BytesIO(response.content)).convert("RGB")
    assert image.size == (1920, 1080)
    # Not a blank frame: the panel, its icons and text give many colours...
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, f"only {len(colours or [])} colours on screen"
    # ...and the top panel's strip differs from the desktop background below it.
    panel = image.crop((0, 0, 1920, 20)).resize((1, 1)).getpixel((0, 0))
    background = image.crop((400, 400, 1500, 700)).resize((1, 1)).getpixel((0, 0))
    assert sum(abs(a - b) for a, b in zip(panel, background)) > 60, (panel, background)


def test_execute_runs_as_the_non_root_user(desktop: Desktop) -> None:
    result = desktop.execute("id -u; id -un; echo $HOME; echo $DISPLAY")
    assert result["exit_code"] == 0, result
    assert result["stdout"].split() == ["1000", "desktop", "/home/desktop", ":0"]


def test_novnc_serves_its_page_and_bridges_to_vnc(desktop: Desktop) -> None:
    for path in ("/", "/vnc.html"):
        response = requests.get(desktop.url(6080, path), timeout=10)
        assert response.status_code == 200, (path, response.status_code)
        assert "noVNC" in response.text
    # The page alone proves little: its WebSocket must reach x11vnc (what the browser client does).
    with connect(f"ws://127.0.0.1:{desktop.ports[6080]}/websockify", subprotocols=["binary"],
                 open_timeout=10) as websocket:
        assert websocket.recv(timeout=10) == b"RFB 003.008\n"


def test_vnc_speaks_rfb_38_and_checks_the_password(desktop: Desktop) -> None:
    version, accepted, _reason = vnc_login(desktop, "wrong" + desktop.vnc_password[:3])
    assert version == b"RFB 003.008\n"
    assert not accepted, "a wrong VNC password was accepted"
    version, accepted, size = vnc_login(desktop, desktop.vnc_password)
    assert accepted, f"the right VNC password was refused: {size!r}"
    assert size == (1920).to_bytes(2, "big") + (1080).to_bytes(2, "big")


def x11vnc_processes(desktop: Desktop) -> list[str]:
    _code, listing = desktop.exec_in("ps", "-eo", "args")
    return [line for line in listing.splitlines() if line.startswith("x11vnc ")]


def x11vnc_count_once_settled(desktop: Desktop, expected: int, timeout: float = 30) -> int:
    """How many x11vnc run once they reached `expected` or `timeout` passed (bounded poll: a
    viewer's x11vnc notices its connection closed on its next poll of the socket)."""
    deadline = time.monotonic() + timeout
    while len(running := x11vnc_processes(desktop)) != expected and time.monotonic() < deadline:
        time.sleep(0.2)
    return len(running)


def test_x11vnc_runs_per_viewer_and_ends_when_its_viewer_leaves(desktop: Desktop) -> None:
    """An unwatched desktop holds only a listener on the VNC port (memory); two viewers at once
    each get the screen, and each one's x11vnc ends with its connection."""
    assert x11vnc_count_once_settled(desktop, 0) == 0
    with socket.create_connection(("127.0.0.1", desktop.ports[5900]), timeout=15) as first:
        assert recv_exact(first, 12) == b"RFB 003.008\n"
        version, accepted, size = vnc_login(desktop, desktop.vnc_password)   # a second viewer meanwhile
        assert (version, accepted) == (b"RFB 003.008\n", True), size
        assert size == (1920).to_bytes(2, "big") + (1080).to_bytes(2, "big")
        assert x11vnc_count_once_settled(desktop, 1) == 1, "the second viewer's x11vnc did not end with it"
    assert x11vnc_count_once_settled(desktop, 0) == 0, "the first viewer's x11vnc did not end with it"


def test_generated_secrets_are_printed_and_enforced_when_none_given(images: dict[str, str]) -> None:
    tc, running = start_desktop(images["desktop"], token=None, env={"VNC_PASSWORD": ""}, ports=(8080,))
    try:
        logs = running.logs()
        assert "generated VNC password" in logs, logs
        code, listing = running.exec_in("ls", "-l", "/run/desktop/vnc.password")
        assert code == 0 and listing.startswith("-rw-------"), listing
        token = re.search(r"generated token: (\S+)", logs)
        assert token, logs
        assert requests.get(running.url(8080, "/api/v1/tree"), timeout=10).status_code == 401
        running.token = token.group(1)
        assert running.get(8080, "/api/v1/tree").status_code == 200
        # The services' environment carries no secret (they read files).
        code, env = running.exec_in("sh", "-c", "cat /proc/$(pgrep -x -f 'python3 -m desktopd')/environ | tr '\\0' '\\n'")
        assert code == 0 and "DESKTOPD_TOKEN_FILE=" in env, env
        assert "VNC_PASSWORD=" not in env and "DESKTOPD_TOKEN=" not in env, env
    finally:
        remove(tc)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("backend", "display_server", "program"), [("x11", "Xvfb", "xvfb"),
                                                                    ("sway", "sway", "sway")])
def test_killing_the_display_server_stops_the_container_non_zero(
        images: dict[str, str], backend: str, display_server: str, program: str) -> None:
    tc, running = start_desktop(images["desktop"], ports=(8080,), env={"DESKTOPD_BACKEND": backend})
    try:
        code, pid = running.exec_in("pgrep", "-x", display_server)
        assert code == 0, pid
        code, output = running.exec_in("kill", "-9", pid.strip())
        assert code == 0, output
        exit_code = wait_exit(running.container, timeout=120)
        logs = running.logs()
        assert exit_code != 0, logs
        assert f"{program} exited" in logs.lower() and "stopped because" in logs, logs
    finally:
        remove(tc)


@pytest.mark.timeout(600)
def test_a_program_that_keeps_failing_stops_the_container_non_zero(images: dict[str, str]) -> None:
    # desktopd refuses a bad setting at every start: supervisor gives up (FATAL), the watchdog
    # stops the container with exit 1 instead of leaving it running without desktopd.
    tc, running = start_desktop(images["desktop"], env={"DESKTOPD_LOG_LEVEL": "bogus"}, ports=(8080,), wait=False)
    try:
        exit_code = wait_exit(running.container, timeout=180)
        logs = running.logs()
        assert exit_code == 1, logs
        assert "desktopd fatal" in logs and "stopped because" in logs, logs
    finally:
        remove(tc)


@pytest.mark.parametrize(("env", "message"), [
    ({"WIDTH": "wide"}, "WIDTH must be a positive integer, got 'wide'"),
    ({"DESKTOPD_TOKEN_FILE": "/run/secrets/missing"}, "DESKTOPD_TOKEN_FILE=/run/secrets/missing is not readable"),
    ({"VNC_PASSWORD_FILE": "/run/secrets/missing"}, "VNC_PASSWORD_FILE=/run/secrets/missing is not readable"),
    ({"DESKTOPD_PUBLISH_ADDRESS": "0.0.0.0", "DESKTOPD_INSECURE": "1"}, "published on 0.0.0.0, not loopback"),
])
def test_bad_settings_stop_the_container_with_a_clear_message(images: dict[str, str], env: dict[str, str],
                                                              message: str) -> None:
    tc, running = start_desktop(images["desktop"], token=None, env=env, ports=(8080,), wait=False)
    try:
        exit_code = wait_exit(running.container, timeout=60)
        logs = running.logs()
        assert exit_code == 2, logs
        assert message in logs, logs
    finally:
        remove(tc)


def test_vision_text_says_this_image_has_no_ocr_engine(desktop: Desktop) -> None:
    response = desktop.get(8080, "/api/v1/vision/text")
    assert response.status_code == 503, response.text
    assert response.json()["error"] == "ocr_unavailable"
