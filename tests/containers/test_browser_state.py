"""Browser state that lasts, in the Chromium image: a login on a named profile (its directory a
named Docker volume, as compose.yaml maps it) survives a reset and a container restart, the
default profile is logged out, and a storage state exported from one container logs another
in. The site is served inside each container (Chromium there reaches only its own loopback)."""

from __future__ import annotations

import io
import secrets
import tarfile
import time

import docker
import pytest

from .support import CHROMIUM_IMAGE, Desktop, read_ports, remove, start_desktop, wait_healthy

PROFILES = "/var/lib/desktopd/profiles"
SITE_PORT = 8765
SITE = f"http://127.0.0.1:{SITE_PORT}"
# The login form's page: it sets a cookie that lasts a day and the user in localStorage.
LOGIN = """<!doctype html><title>logging in</title><script>
const user = new URLSearchParams(location.search).get('user');
document.cookie = 'session=' + user + '; max-age=86400; path=/; samesite=lax';
localStorage.setItem('user', user);
document.title = 'logged in';
</script>"""
ACCOUNT = """<!doctype html><title>loading</title><script>
const cookie = (document.cookie.match(/(?:^|; )session=([^;]*)/) || [])[1] || 'none';
document.title = 'cookie=' + cookie + ' storage=' + (localStorage.getItem('user') || 'none');
</script>"""
WAIT_FOR_SITE = f"""
import socket, time
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", {SITE_PORT}), 0.5).close()
        break
    except OSError:
        time.sleep(0.05)
else:
    raise SystemExit("the site did not start")
"""


def serve_site(desktop: Desktop) -> None:
    """The two pages under /tmp/site, served by python3 on the container's loopback."""
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for name, text in (("site/login.html", LOGIN), ("site/account.html", ACCOUNT)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.uid, info.gid, info.mode = len(data), 1000, 1000, 0o644
            tar.addfile(info, io.BytesIO(data))
    assert desktop.container.put_archive("/tmp", archive.getvalue())
    desktop.container.exec_run(["python3", "-m", "http.server", str(SITE_PORT), "--bind", "127.0.0.1",
                                "--directory", "/tmp/site"], user="1000", detach=True)
    code, output = desktop.exec_in("python3", "-c", WAIT_FOR_SITE)
    assert code == 0, output


def reset_title(desktop: Desktop, page: str, profile: str | None = None) -> str:
    body: dict[str, object] = {"urls": [f"{SITE}/{page}"], "close_windows": False}
    if profile is not None:
        body["profile"] = profile
    response = desktop.post(8080, "/api/v1/reset", body)
    assert response.status_code == 200, response.text
    return response.json()["browser"]["tabs"][0]["title"]


@pytest.mark.timeout(900)
def test_a_login_lasts_on_its_profile_across_restarts_and_moves_by_storage_state() -> None:
    client = docker.from_env()
    volume = client.volumes.create(f"desktopd-test-profiles-{secrets.token_hex(4)}")
    first_tc = second_tc = None
    try:
        first_tc, first = start_desktop(CHROMIUM_IMAGE, ports=(8080, 8122), volumes={volume.name: PROFILES},
                                        env={"WIDTH": "1280", "HEIGHT": "800"})
        serve_site(first)
        assert reset_title(first, "login.html?user=alice", "alice") == "logged in"
        assert reset_title(first, "account.html", "alice") == "cookie=alice storage=alice"
        assert reset_title(first, "account.html") == "cookie=none storage=none"
        assert reset_title(first, "account.html", "alice") == "cookie=alice storage=alice"
        assert first.exec_in("stat", "-c", "%a %U", f"{PROFILES}/alice")[1].strip() == "700 desktop"
        state = first.get(8122, "/storage-state").json()
        assert [c["value"] for c in state["cookies"] if c["name"] == "session"] == ["alice"]

        # The container restarts (as docker restart: stopped with SIGTERM, started again; its
        # health is awaited from the start on, the stop's own "die" event before it).
        first.container.stop(timeout=30)
        since = time.time() + 1.0          # wait_healthy looks one second back: not at the stop
        first.container.start()
        wait_healthy(first.container, since=since)
        read_ports(first, (8080, 8122))
        serve_site(first)
        assert reset_title(first, "account.html", "alice") == "cookie=alice storage=alice"

        # Another container, without the volume: logged in by the storage state alone.
        second_tc, second = start_desktop(CHROMIUM_IMAGE, ports=(8080, 8122),
                                          env={"WIDTH": "1280", "HEIGHT": "800"})
        serve_site(second)
        assert reset_title(second, "account.html") == "cookie=none storage=none"
        loaded = second.post(8122, "/storage-state", state)
        assert loaded.status_code == 200, loaded.text
        tab = second.get(8122, "/tabs").json()[0]["id"]
        navigated = second.post(8122, f"/tabs/{tab}/navigate", {"url": f"{SITE}/account.html"})
        assert navigated.status_code == 200, navigated.text
        assert second.get(8122, f"/tabs/{tab}").json()["title"] == "cookie=alice storage=alice"
    finally:
        for tc in (second_tc, first_tc):
            if tc is not None:
                remove(tc)
        volume.remove(force=True)
