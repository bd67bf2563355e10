"""A private session D-Bus with the accessibility bus on it, for a desktop started outside a full
session (the tests, the benchmark): dbus-daemon, at-spi-bus-launcher (which starts the
accessibility bus's own dbus-daemon) and at-spi2-registryd, each started here and stopped by PID.

The registry is started explicitly, before any application asks for it: left to D-Bus activation
it would daemonise out of reach of our stop.
"""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import time
from dataclasses import dataclass, field

from dbus_next import Message, MessageType

from .bus import accessibility_bus_address, close_bus, open_bus

LIBEXEC_DIRS = ("/usr/libexec", "/usr/lib/at-spi2-core", "/usr/lib/x86_64-linux-gnu/at-spi2-core")


def libexec(name: str) -> str:
    for directory in LIBEXEC_DIRS:
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f"{name} not found in {', '.join(LIBEXEC_DIRS)} (Debian package at-spi2-core)")


@dataclass
class AccessibilitySession:
    session_address: str
    processes: list[subprocess.Popen] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        """What a process of this session needs beside DISPLAY."""
        return {"DBUS_SESSION_BUS_ADDRESS": self.session_address}

    def start_accessibility_bus(self, display: str, log_dir: str, *, timeout: float = 20.0) -> None:
        """at-spi-bus-launcher and the registry on this session bus. ``display`` empty: no X
        (a Wayland desktop), where DISPLAY must be unset: the registry exits on one it cannot open."""
        env = {**os.environ, "DISPLAY": display, **self.env()}
        if not display:
            env.pop("DISPLAY")
            # Without a display the launcher names its socket $XDG_RUNTIME_DIR/at-spi/bus, one
            # path for every such session of the user: this session's own directory instead.
            env["XDG_RUNTIME_DIR"] = os.path.join(log_dir, "runtime")
            os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        env.pop("NO_AT_BRIDGE", None)
        self.processes.append(_spawn([libexec("at-spi-bus-launcher"), "--launch-immediately"],
                                     os.path.join(log_dir, "at-spi-bus-launcher.log"), env))
        _wait_for(lambda: asyncio.run(accessibility_bus_address(self.session_address)) is not None,
                  "the accessibility bus did not come up", timeout)
        registry_log = os.path.join(log_dir, "at-spi2-registryd.log")
        registry = _spawn([libexec("at-spi2-registryd")], registry_log, env)
        self.processes.append(registry)

        def registered() -> bool:
            if registry.poll() is not None:
                with open(registry_log, errors="replace") as log:
                    raise RuntimeError(f"at-spi2-registryd exited with {registry.returncode}: {log.read()[-500:]}")
            return asyncio.run(_registry_owned(self.session_address))

        _wait_for(registered, "the accessibility registry did not answer", timeout)

    def stop(self) -> None:
        _stop_all(self.processes)
        self.processes = []


def _stop_all(processes: list[subprocess.Popen]) -> None:
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
    for process in reversed(processes):
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _read_line(process: subprocess.Popen, timeout: float) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        raise TimeoutError("dbus-daemon did not print its address in time")
    line = process.stdout.readline().decode().strip()
    if not line:
        raise RuntimeError(f"dbus-daemon exited with {process.wait()} before it printed its address")
    return line


async def _registry_owned(session_address: str) -> bool:
    address = await accessibility_bus_address(session_address)
    if address is None:
        return False
    a11y = await open_bus(address)
    try:
        owner = await a11y.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                                        interface="org.freedesktop.DBus", member="NameHasOwner",
                                        signature="s", body=["org.a11y.atspi.Registry"]))
    finally:
        await close_bus(a11y)
    return owner.message_type != MessageType.ERROR and bool(owner.body[0])


def _wait_for(condition, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout} s")
        time.sleep(0.05)  # bounded poll: D-Bus names are announced, but not to a client not yet there


def _spawn(argv: list[str], log_path: str, env: dict[str, str] | None = None,
           address_pipe: bool = False) -> subprocess.Popen:
    with open(log_path, "ab") as log:
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stderr=log,
                                stdout=subprocess.PIPE if address_pipe else log)


def start_session(display: str, log_dir: str, *, socket_path: str | None = None,
                  timeout: float = 20.0) -> AccessibilitySession:
    """Start the buses for ``display``; returns once the registry answers on the accessibility bus.
    ``socket_path``: the session bus listens there (a restarted session keeps its address)."""
    argv = ["dbus-daemon", "--session", "--nofork", "--print-address=1"]
    if socket_path:
        argv.append(f"--address=unix:path={socket_path}")
    daemon = _spawn(argv, os.path.join(log_dir, "dbus-daemon.log"), address_pipe=True)
    session = AccessibilitySession(session_address="", processes=[daemon])
    try:
        session.session_address = _read_line(daemon, timeout)
        session.start_accessibility_bus(display, log_dir, timeout=timeout)
    except BaseException:
        session.stop()
        raise
    return session
