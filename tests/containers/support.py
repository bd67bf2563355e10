"""Helpers for the container tests: build the images, run containers on 127.0.0.1 ports, wait
for Docker's health verdict (its event stream, not sleeps), and talk VNC/HTTP to them."""

from __future__ import annotations

import datetime as dt
import functools
import os
import secrets
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import docker
import requests
from docker.models.containers import Container
from testcontainers.core.container import DockerContainer

ROOT = Path(__file__).resolve().parents[2]
IMAGE_TAG = os.environ.get("DESKTOPD_TEST_IMAGE_TAG", "latest")
DESKTOP_IMAGE = f"desktopd/desktop:{IMAGE_TAG}"
CHROMIUM_IMAGE = f"desktopd/chromium:{IMAGE_TAG}"
CHROMIUM_FULL_IMAGE = f"desktopd/chromium-full:{IMAGE_TAG}"
LABEL = "desktopd.tests"
HEALTHY_TIMEOUT = 180.0


class NotReady(AssertionError):
    """A container did not become ready; the message carries its logs."""


@functools.cache
def build_images() -> None:
    """scripts/build-images.sh: bootstraps the base if absent. Once a run (eight fixtures ask): the
    tree does not change during a run, and even a build all from Docker's cache sends the context
    and checks every step: 5 s idle, 26 s at a load of 15. A failed build is not remembered: the next
    caller tries again and reports its own failure."""
    result = subprocess.run([str(ROOT / "scripts" / "build-images.sh"), "all"], cwd=ROOT,
                            env={**os.environ, "IMAGE_TAG": IMAGE_TAG},
                            capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise AssertionError(f"building the images failed ({result.returncode}):\n"
                             f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


def logs_of(container: Container, tail: int = 150) -> str:
    try:
        return container.logs(tail=tail).decode("utf-8", "replace")
    except docker.errors.APIError as error:
        return f"(no logs: {error})"


@dataclass
class Desktop:
    """A running container and its 127.0.0.1 host ports."""
    container: Container
    token: str | None = None
    vnc_password: str | None = None
    started: float = 0.0              # time.time() just before `docker run`
    healthy_after: float | None = None
    ports: dict[int, int] = field(default_factory=dict)

    def url(self, port: int, path: str = "") -> str:
        return f"http://127.0.0.1:{self.ports[port]}{path}"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, port: int, path: str, **kwargs) -> requests.Response:
        return requests.get(self.url(port, path), headers=self.headers(), timeout=30, **kwargs)

    def post(self, port: int, path: str, body: dict, **kwargs) -> requests.Response:
        return requests.post(self.url(port, path), json=body, headers=self.headers(), timeout=60, **kwargs)

    def execute(self, command: str, timeout: float = 20) -> dict:
        response = self.post(8080, "/api/v1/execute", {"command": command, "timeout": timeout})
        assert response.status_code == 200, response.text
        return response.json()

    def exec_in(self, *argv: str, user: str = "") -> tuple[int, str]:
        """`docker exec` (as the image's user, or ``user``); for what the HTTP API is not about."""
        code, output = self.container.exec_run(list(argv), user=user)
        return code, output.decode("utf-8", "replace")

    def logs(self) -> str:
        return logs_of(self.container)


def start_desktop(image: str, *, env: dict[str, str] | None = None, token: bool | None = True,
                  vnc_password: str | None = None, ports: tuple[int, ...] = (8080, 6080, 5900),
                  wait: bool = True, volumes: dict[str, str] | None = None,
                  extra_hosts: dict[str, str] | None = None) -> tuple[DockerContainer, Desktop]:
    """Run the image with its ports published on 127.0.0.1 (random host ports). token: True gives
    a random DESKTOPD_TOKEN, False sets DESKTOPD_INSECURE=1, None gives neither (the image's own
    default: it generates a token). extra_hosts: names the container resolves to given addresses."""
    token_value = secrets.token_urlsafe(24) if token else None
    password = vnc_password or secrets.token_hex(4)
    tc = DockerContainer(image)
    for port in ports:
        # with_bind_ports cannot name a host address; docker-py's (ip, None) form publishes on
        # 127.0.0.1 at a free port, and testcontainers hands this dict to docker-py as is.
        tc.ports[f"{port}/tcp"] = ("127.0.0.1", None)  # type: ignore[assignment]
    environment = {"VNC_PASSWORD": password, **(env or {})}
    if token_value:
        environment["DESKTOPD_TOKEN"] = token_value
    elif token is False:
        environment["DESKTOPD_INSECURE"] = "1"
    for key, value in environment.items():
        tc.with_env(key, value)
    for volume, path in (volumes or {}).items():     # a named volume (or host path) on path
        tc.with_volume_mapping(volume, path, "rw")
    tc.with_kwargs(shm_size="1g", labels={LABEL: "1"}, extra_hosts=extra_hosts or {})
    started = time.time()
    tc.start()
    container = tc.get_wrapped_container()
    desktop = Desktop(container=container, token=token_value, vnc_password=password, started=started)
    try:
        read_ports(desktop, ports)
        if wait:
            desktop.healthy_after = wait_healthy(container, since=started) - started
    except BaseException:
        remove(tc)
        raise
    return tc, desktop


def read_ports(desktop: Desktop, ports: tuple[int, ...]) -> None:
    """The container's host ports now (a restarted container may be given new ones)."""
    container = desktop.container
    container.reload()
    for port in ports:
        # A container that already stopped (bad settings) has no bindings left.
        bindings = container.ports.get(f"{port}/tcp")
        if bindings:
            desktop.ports[port] = int(bindings[0]["HostPort"])


def remove(tc: DockerContainer) -> None:
    try:
        tc.get_wrapped_container().remove(force=True, v=True)
    except docker.errors.NotFound:
        pass


def wait_healthy(container: Container, *, since: float, timeout: float = HEALTHY_TIMEOUT) -> float:
    """Block on Docker's event stream until the container's health turns healthy; return when
    (epoch seconds). A death or the deadline raises NotReady with the container's logs."""
    client = container.client
    deadline = time.time() + timeout
    events = client.api.events(since=dt.datetime.fromtimestamp(since - 1), until=dt.datetime.fromtimestamp(deadline),
                               filters={"container": container.id}, decode=True)
    try:
        for event in events:
            action = event.get("Action") or event.get("status") or ""
            if action == "health_status: healthy":
                return event["timeNano"] / 1e9
            # Docker's `since` counts whole seconds: a death earlier in that second (a restart's
            # own stop) comes too, and is not this start's.
            if action == "die" and event["timeNano"] / 1e9 >= since - 1:
                raise NotReady(f"{container.name} died before turning healthy "
                               f"(exit {event.get('Actor', {}).get('Attributes', {}).get('exitCode')}):\n"
                               f"{logs_of(container)}")
    finally:
        events.close()
    container.reload()
    raise NotReady(f"{container.name} not healthy within {timeout:.0f}s "
                   f"(state {container.attrs['State'].get('Health', {}).get('Status')}):\n"
                   f"{health_log(container)}\n{logs_of(container)}")


def wait_exit(container: Container, timeout: float) -> int:
    """The container's exit code once it stops (docker wait), or NotReady with its logs."""
    try:
        return int(container.wait(timeout=timeout)["StatusCode"])
    except requests.exceptions.ConnectionError:  # docker-py reports the wait's timeout this way
        raise NotReady(f"{container.name} still running after {timeout:.0f}s:\n{logs_of(container)}") from None


def health_log(container: Container) -> str:
    entries = container.attrs["State"].get("Health", {}).get("Log") or []
    return "\n".join(f"health probe exit {e.get('ExitCode')}: {e.get('Output', '').strip()}" for e in entries[-3:])


# --- VNC (RFB 3.8, security type 2 "VNC Authentication") -----------------------------------------

def vnc_key(password: str) -> bytes:
    """VNC's DES key: the password's first 8 bytes, zero padded, each byte's bits mirrored."""
    raw = password.encode("latin-1")[:8].ljust(8, b"\0")
    return bytes(int(f"{byte:08b}"[::-1], 2) for byte in raw)


def des_ecb(key: bytes, data: bytes, desktop: Desktop) -> bytes:
    """DES-ECB with the container's own openssl (x11vnc depends on it): Python's stdlib has no
    DES and the test environment needs no extra crypto package for 16 bytes."""
    octal = "".join("\\%03o" % byte for byte in data)  # printf's escapes: no binary in argv
    result = desktop.container.exec_run(
        ["sh", "-c", f"printf '{octal}' | "
                     f"openssl enc -des-ecb -nopad -provider legacy -provider default -K {key.hex()}"])
    assert result.exit_code == 0, result.output
    assert len(result.output) == len(data), result.output
    return result.output


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError(f"VNC server closed the connection after {data!r}")
        data += chunk
    return data


def vnc_login(desktop: Desktop, password: str) -> tuple[bytes, bool, bytes]:
    """Handshake to the security result: (server version line, accepted?, reason or ServerInit)."""
    with socket.create_connection(("127.0.0.1", desktop.ports[5900]), timeout=15) as sock:
        version = recv_exact(sock, 12)
        sock.sendall(b"RFB 003.008\n")
        count = recv_exact(sock, 1)[0]
        if count == 0:
            length = struct.unpack(">I", recv_exact(sock, 4))[0]
            raise AssertionError(f"VNC server refused the handshake: {recv_exact(sock, length)!r}")
        types = recv_exact(sock, count)
        assert 2 in types, f"no VNC Authentication among security types {list(types)}"
        sock.sendall(b"\x02")
        challenge = recv_exact(sock, 16)
        sock.sendall(des_ecb(vnc_key(password), challenge, desktop))
        result = struct.unpack(">I", recv_exact(sock, 4))[0]
        if result != 0:
            length = struct.unpack(">I", recv_exact(sock, 4))[0]
            return version, False, recv_exact(sock, length)
        sock.sendall(b"\x01")  # ClientInit: shared
        return version, True, recv_exact(sock, 4)  # framebuffer width, height
