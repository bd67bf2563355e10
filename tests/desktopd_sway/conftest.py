"""Fixtures for the Sway backend's integration tests: a private headless Sway per module (the
real compositor, never faked), and desktopd's Sway backend on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from desktopd.sway.desktop import SwayDesktop
from tests.support.capability import have_program, require

WIDTH, HEIGHT = 1280, 800
START_TIMEOUT_S = 30.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here) and "live" in item.path.name:
            item.add_marker(pytest.mark.sway)


@dataclass
class Sway:
    runtime_dir: str
    wayland_display: str
    swaysock: str
    process: subprocess.Popen


def _as_unprivileged() -> list[str]:
    # Sway refuses to run as root: drop to nobody (the runtime dir is theirs).
    if os.getuid() != 0:
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture(scope="module")
def sway() -> Iterator[Sway]:
    require(have_program("sway"), "Sway (Debian package sway)")
    runtime = tempfile.mkdtemp(prefix="desktopd-sway-")
    os.chmod(runtime, 0o700)
    if os.getuid() == 0:
        os.chown(runtime, 65534, 65534)
    config = os.path.join(runtime, "config")
    with open(config, "w", encoding="utf-8") as out:
        out.write(f"output HEADLESS-1 resolution {WIDTH}x{HEIGHT} position 0 0\n"
                  "xwayland disable\ndefault_border none\n")
    os.chmod(config, 0o644)
    swaysock = os.path.join(runtime, "sway-ipc.sock")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless",
           "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "SWAYSOCK": swaysock,
           "HOME": runtime}
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    with open(os.path.join(runtime, "sway.log"), "wb") as log:   # Sway keeps its own copy
        process = subprocess.Popen([*_as_unprivileged(), "sway", "--config", config], env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    sockets = lambda: [n for n in os.listdir(runtime) if n.startswith("wayland-") and not n.endswith(".lock")]
    while not (os.path.exists(swaysock) and sockets()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            with open(os.path.join(runtime, "sway.log"), encoding="utf-8", errors="replace") as out:
                raise RuntimeError(f"Sway did not start:\n{out.read()}")
        time.sleep(0.05)   # bounded: the sockets appear once Sway listens
    try:
        yield Sway(runtime, sockets()[0], swaysock, process)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def sway_desktop(sway: Sway, monkeypatch: pytest.MonkeyPatch) -> Iterator[SwayDesktop]:
    monkeypatch.setenv("XDG_RUNTIME_DIR", sway.runtime_dir)
    monkeypatch.setenv("SWAYSOCK", sway.swaysock)
    desk = SwayDesktop(sway.wayland_display)
    try:
        yield desk
    finally:
        desk.executor.submit(desk.close).result(10)
        desk.executor.shutdown()
