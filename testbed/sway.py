"""A private headless Sway for integration tests (the real compositor, never faked), configured
as the image's start-sway configures it: one output of the given size, no Xwayland, no borders."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from testbed.capability import have_program, require

START_TIMEOUT_S = 30.0


@dataclass
class Sway:
    runtime_dir: str
    wayland_display: str
    swaysock: str
    process: subprocess.Popen

    def env(self) -> dict[str, str]:
        """What a client of this Sway needs in its environment (desktopd, applications)."""
        return {"XDG_RUNTIME_DIR": self.runtime_dir, "SWAYSOCK": self.swaysock,
                "WAYLAND_DISPLAY": self.wayland_display}


def _as_unprivileged() -> list[str]:
    # Sway refuses to run as root: drop to nobody (the runtime dir is theirs).
    if os.getuid() != 0:
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _wayland_sockets(runtime: str) -> list[str]:
    return [n for n in os.listdir(runtime) if n.startswith("wayland-") and not n.endswith(".lock")]


def launch_sway(runtime: str, width: int, height: int) -> Sway:
    """Sway in ``runtime`` (a directory of its user's), ready once its IPC and Wayland sockets
    exist. A previous instance's sockets there are removed first, as the image's start-sway does,
    so a Sway started again takes the same socket names."""
    require(have_program("sway"), "Sway (Debian package sway)")
    for name in os.listdir(runtime):
        if name.startswith("wayland-") or name == "sway-ipc.sock":
            os.unlink(os.path.join(runtime, name))
    config = os.path.join(runtime, "config")
    with open(config, "w", encoding="utf-8") as out:
        out.write(f"output HEADLESS-1 resolution {width}x{height} position 0 0\n"
                  "xwayland disable\ndefault_border none\ndefault_floating_border none\n"
                  "focus_on_window_activation focus\n")
    os.chmod(config, 0o644)
    swaysock = os.path.join(runtime, "sway-ipc.sock")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless",
           "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "SWAYSOCK": swaysock,
           "HOME": runtime}
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("DISPLAY", None)
    with open(os.path.join(runtime, "sway.log"), "ab") as log:   # Sway keeps its own copy
        process = subprocess.Popen([*_as_unprivileged(), "sway", "--config", config], env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (os.path.exists(swaysock) and _wayland_sockets(runtime)):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            with open(os.path.join(runtime, "sway.log"), encoding="utf-8", errors="replace") as out:
                raise RuntimeError(f"Sway did not start:\n{out.read()}")
        time.sleep(0.05)   # bounded: the sockets appear once Sway listens
    return Sway(runtime, _wayland_sockets(runtime)[0], swaysock, process)


def stop_sway(sway: Sway) -> None:
    sway.process.terminate()
    try:
        sway.process.wait(10)
    except subprocess.TimeoutExpired:
        sway.process.kill()
        sway.process.wait(10)


@contextmanager
def running_sway(width: int, height: int) -> Iterator[Sway]:
    """A headless Sway in a runtime directory of its own, stopped and cleaned after."""
    require(have_program("sway"), "Sway (Debian package sway)")
    runtime = tempfile.mkdtemp(prefix="desktopd-sway-")
    os.chmod(runtime, 0o700)
    if os.getuid() == 0:
        os.chown(runtime, 65534, 65534)
    try:
        sway = launch_sway(runtime, width, height)
        try:
            yield sway
        finally:
            stop_sway(sway)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def place_window(sway: Sway, pid: int, x: int, y: int, timeout: float = 10.0) -> dict:
    """Move the floating window of process ``pid`` to (x, y) through Sway's IPC; its tree node
    once Sway shows it there."""
    from swayipc.ipc import SwayIpc
    from swayipc.tree import window_nodes

    ipc = SwayIpc(sway.swaysock)
    try:
        deadline = time.monotonic() + timeout
        while True:
            node = next((n for n in window_nodes(ipc.tree()) if n.get("pid") == pid), None)
            if node is not None and (node["rect"]["x"], node["rect"]["y"]) == (x, y):
                return node
            if node is not None:
                result = ipc.command(f"[pid={pid}] move absolute position {x} {y}")
                assert all(r["success"] for r in result), result
            if time.monotonic() > deadline:
                raise RuntimeError(f"the window of pid {pid} is not at ({x}, {y}): {node}")
            time.sleep(0.05)   # bounded: the window maps, then moves, as Sway's tree shows
    finally:
        ipc.close()
