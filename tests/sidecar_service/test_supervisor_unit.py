"""ChromiumSupervisor's reconnect and restart logic, with a stand-in browser process (a shell
script that prints a fake CDP server's URL the way Chromium does) and the fake CDP server."""

from __future__ import annotations

import os
import signal
import stat

import pytest

from sidecar.browser.supervisor import ChromiumSupervisor
from sidecar.settings import Settings

from .fake_cdp import FakeCDPServer
from .support import wait_pid_gone


@pytest.fixture
def fake_browser(tmp_path, fake_cdp: FakeCDPServer) -> str:
    """An executable that announces the fake CDP server and then just lives (until killed)."""
    script = tmp_path / "fake-chromium"
    script.write_text(f"#!/bin/sh\necho 'DevTools listening on {fake_cdp.url}' >&2\nexec sleep 120\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)

    async def auto_attach(message: dict) -> dict:
        if "sessionId" not in message:   # the browser-level call: one tab attaches
            await fake_cdp.emit("Target.attachedToTarget", {
                "sessionId": "S1", "waitingForDebugger": False,
                "targetInfo": {"targetId": "T1", "type": "page", "url": "about:blank", "title": ""}})
        return {}

    fake_cdp.handlers["Target.setAutoAttach"] = auto_attach
    fake_cdp.handlers["Browser.getVersion"] = lambda _m: {"product": "Chrome/0.fake",
                                                           "protocolVersion": "1.3"}
    return str(script)


def settings_for(browser: str) -> Settings:
    return Settings(headless=True, display=None, chromium_path=browser, restart_backoff=0.2,
                    cdp_timeout=5)


async def test_socket_drop_reconnects_to_the_same_browser(fake_browser: str,
                                                          fake_cdp: FakeCDPServer) -> None:
    supervisor = ChromiumSupervisor(settings_for(fake_browser))
    await supervisor.start()
    try:
        await supervisor.wait_until("ok", 20)
        pid = (await supervisor.health())["pid"]
        first = supervisor.current()
        await fake_cdp.drop()
        # Degraded for at least the second the supervisor gives the process to show its exit.
        await supervisor.wait_until("degraded", 20)
        await supervisor.wait_until("ok", 20)
        assert supervisor.current() is not first and supervisor.current().conn is not first.conn
        health = await supervisor.health()
        assert health["reconnects"] == 1 and health["restarts"] == 0
        assert health["pid"] == pid and health["version"] == "Chrome/0.fake"
    finally:
        await supervisor.stop()


async def test_dead_browser_is_restarted_and_stop_removes_the_profile(fake_browser: str) -> None:
    supervisor = ChromiumSupervisor(settings_for(fake_browser))
    await supervisor.start()
    try:
        await supervisor.wait_until("ok", 20)
        assert supervisor.profile is not None and supervisor.profile.name is None
        profile = supervisor.profile.path
        assert os.path.isdir(profile)
        old_pid = (await supervisor.health())["pid"]
        os.kill(old_pid, signal.SIGKILL)
        await supervisor.wait_until("degraded", 20)
        await supervisor.wait_until("ok", 20)
        health = await supervisor.health()
        assert health["restarts"] == 1 and health["pid"] != old_pid
        assert "killed by signal 9" in health["last_error"]
        new_pid = health["pid"]
    finally:
        await supervisor.stop()
    assert await wait_pid_gone(new_pid, 10)
    assert not os.path.exists(profile)


def test_profiles_of_dead_sidecars_are_removed_and_others_kept(tmp_path, monkeypatch) -> None:
    import subprocess
    import tempfile

    from sidecar.state import throwaway_dirs

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    exited = subprocess.Popen(["true"])     # a pid that has certainly exited (and been reaped)
    exited.wait()
    profiles = {}
    for name, owner in (("dead", str(exited.pid)), ("alive", str(os.getppid())),
                        ("foreign", None)):
        path = tmp_path / f"{throwaway_dirs.PROFILE_PREFIX}{name}"
        path.mkdir()
        if owner is not None:
            (path / throwaway_dirs.OWNER_FILE).write_text(owner)
        profiles[name] = path
    other = tmp_path / "unrelated"
    other.mkdir()
    throwaway_dirs.remove_stale_throwaway_dirs()
    assert not profiles["dead"].exists()
    assert profiles["alive"].exists() and profiles["foreign"].exists() and other.exists()
