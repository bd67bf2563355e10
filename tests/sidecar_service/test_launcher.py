"""The Chromium command line, launch failures and stopping (real processes, no mocks)."""

from __future__ import annotations

import os
import stat

import pytest

from sidecar.browser.launcher import LaunchError, LaunchOptions, chromium_command, launch

from .support import pid_alive, wait_pid_gone


def test_command_has_container_flags_loopback_cdp_and_one_start_url() -> None:
    cmd = chromium_command(LaunchOptions(chromium_path="/usr/bin/chromium", window_size=(1280, 800)),
                           "/tmp/profile", "http://example.test/")
    assert cmd[0] == "/usr/bin/chromium" and cmd[-1] == "http://example.test/"
    for flag in ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--no-default-browser-check", "--password-store=basic",
                 "--hide-crash-restore-bubble", "--remote-debugging-port=0",
                 "--remote-debugging-address=127.0.0.1", "--user-data-dir=/tmp/profile",
                 "--window-position=0,0", "--window-size=1280,800"):
        assert flag in cmd, flag
    assert "--headless=new" not in cmd and "--kiosk" not in cmd


def test_options_headless_kiosk_app_and_merged_disable_features() -> None:
    options = LaunchOptions(headless=True, kiosk=True, app_mode=True, cdp_port=9333,
                            window_position=(10, 20),
                            extra_flags=("--disable-features=Foo,Bar", "--lang=de", "--enable-features=Baz"))
    cmd = chromium_command(options, "/p", None)
    assert "--headless=new" in cmd and "--kiosk" in cmd and "--lang=de" in cmd
    assert cmd[-1] == "--app=about:blank"
    assert "--remote-debugging-port=9333" in cmd and "--window-position=10,20" in cmd
    disabled = [f for f in cmd if f.startswith("--disable-features=")]
    assert len(disabled) == 1            # Chromium would only honour the last one
    assert {"Translate", "Foo", "Bar"} <= set(disabled[0].split("=", 1)[1].split(","))
    enabled = [f for f in cmd if f.startswith("--enable-features=")]
    assert len(enabled) == 1 and {"NetworkServiceInProcess2", "Baz"} <= set(enabled[0].split("=", 1)[1].split(","))


async def test_missing_executable_is_a_launch_error(tmp_path) -> None:
    with pytest.raises(LaunchError, match="cannot execute"):
        await launch(LaunchOptions(chromium_path=str(tmp_path / "nope"), headless=True), str(tmp_path))


async def test_early_exit_reports_the_browser_stderr(tmp_path) -> None:
    fake = tmp_path / "broken-chromium"
    fake.write_text("#!/bin/sh\necho 'cannot open display: :99' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(LaunchError) as caught:
        await launch(LaunchOptions(chromium_path=str(fake), display=":99"), str(tmp_path))
    assert "status 3" in str(caught.value) and "cannot open display" in str(caught.value)


async def test_silent_browser_times_out_with_a_launch_error(tmp_path) -> None:
    fake = tmp_path / "silent-chromium"
    fake.write_text("#!/bin/sh\necho 'starting...' >&2\nexec sleep 60\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(LaunchError, match="within 1.0 s") as caught:
        await launch(LaunchOptions(chromium_path=str(fake), headless=True, start_timeout=1.0),
                     str(tmp_path))
    assert "starting..." in str(caught.value)


@pytest.mark.chromium
async def test_launch_reads_the_ws_url_and_stop_ends_the_process_group(chromium: str, tmp_path) -> None:
    browser = await launch(LaunchOptions(chromium_path=chromium, headless=True), str(tmp_path))
    try:
        assert browser.ws_url.startswith("ws://127.0.0.1:")
        assert "/devtools/browser/" in browser.ws_url
        assert pid_alive(browser.pid)
        group = [int(p) for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) == browser.pid]
        assert len(group) > 1            # renderers, zygote... all in Chromium's own group
    finally:
        await browser.stop()
    assert browser.returncode is not None
    for pid in group:
        assert await wait_pid_gone(pid, 10), f"process {pid} of Chromium's group survived stop()"


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None
