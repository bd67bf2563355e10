"""compose.yaml: valid for docker-compose 1.29 (and v2), builds, and comes up healthy with its
ports published on 127.0.0.1 only."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import docker
import pytest
import requests

from testbed.capability import require
from tests.compat.test_original_clients import check_original_harness, check_seed_example

from .support import ROOT, wait_healthy


def compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def compose(images: dict[str, str]) -> Iterator[tuple[list[str], dict[str, str]]]:
    command = compose_command()
    require(command is not None, "docker-compose (Debian package docker-compose) or docker compose v2")
    project = f"desktopd-test-{secrets.token_hex(4)}"
    ports = {name: str(free_port()) for name in ("DESKTOPD", "SIDECAR", "NOVNC", "VNC")}
    # A tag of its own: compose builds chromium:<tag> itself (the layers come from the cache, so
    # this is quick).
    tag = f"composetest-{secrets.token_hex(3)}"
    env = {**os.environ, "COMPOSE_PROJECT_NAME": project, "VNC_PASSWORD": secrets.token_hex(4),
           "SIDECAR_KIOSK": "1",
           "DESKTOPD_IMAGE_TAG": tag, **{f"{name}_PUBLISHED_PORT": port for name, port in ports.items()}}
    base = [*command, "-f", str(ROOT / "compose.yaml"), "-p", project]
    try:
        yield base, env
    finally:
        subprocess.run([*base, "down", "-v", "--remove-orphans", "--timeout", "20"], env=env, cwd=ROOT,
                       capture_output=True, timeout=180)
        subprocess.run(["docker", "rmi", f"desktopd/chromium:{tag}"],
                       capture_output=True, timeout=120)


def run(argv: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{argv} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result


def test_compose_file_is_valid(compose: tuple[list[str], dict[str, str]]) -> None:
    base, env = compose
    config = run([*base, "config"], env).stdout
    assert "shm_size" in config and "127.0.0.1" in config
    assert f"127.0.0.1:{env['NOVNC_PUBLISHED_PORT']}" in config or env["NOVNC_PUBLISHED_PORT"] in config


def test_compose_up_turns_healthy(compose: tuple[list[str], dict[str, str]]) -> None:
    base, env = compose
    started = time.time()
    run([*base, "up", "-d", "--build"], env)
    container_id = run([*base, "ps", "-q", "chromium"], env).stdout.strip()
    assert container_id, "compose started no chromium container"
    container = docker.from_env().containers.get(container_id)
    wait_healthy(container, since=started)
    container.reload()
    bindings = container.attrs["HostConfig"]["PortBindings"]
    assert {b[0]["HostIp"] for b in bindings.values()} == {"127.0.0.1"}, bindings
    assert container.attrs["HostConfig"]["ShmSize"] >= 1 << 30
    assert "no-new-privileges:true" in container.attrs["HostConfig"]["SecurityOpt"]
    code, status = container.exec_run(["grep", "NoNewPrivs", "/proc/1/status"])
    assert code == 0 and status.decode().split() == ["NoNewPrivs:", "1"], status
    for name, port in (("DESKTOPD", 8080), ("SIDECAR", 8122)):
        response = requests.get(f"http://127.0.0.1:{env[f'{name}_PUBLISHED_PORT']}/health", timeout=10)
        assert response.status_code == 200 and response.json()["status"] == "ok", (port, response.text)
    # No token in the environment: compose sets DESKTOPD_INSECURE=1 because it publishes on loopback.
    tree = requests.get(f"http://127.0.0.1:{env['DESKTOPD_PUBLISHED_PORT']}/api/v1/tree", timeout=10)
    assert tree.status_code == 200, tree.text
    novnc = requests.get(f"http://127.0.0.1:{env['NOVNC_PUBLISHED_PORT']}/vnc.html", timeout=10)
    assert novnc.status_code == 200 and "noVNC" in novnc.text
    # The seed document's example workflow, unchanged, against the stack (kiosk: its page fills
    # the screen from the top-left corner, as the original's full-screen browser did).
    check_seed_example(_url(env, "DESKTOPD"), _url(env, "SIDECAR"))


def _url(env: dict[str, str], name: str) -> str:
    return f"http://127.0.0.1:{env[f'{name}_PUBLISHED_PORT']}"


def test_compose_runs_the_original_harness_with_the_viewport_switch(
        compose: tuple[list[str], dict[str, str]]) -> None:
    """A harness written for the original system, unchanged; the user sets the env var."""
    base, env = compose
    env = {**env, "SIDECAR_BOUNDS_SPACE": "viewport", "SIDECAR_KIOSK": "1"}
    started = time.time()
    run([*base, "up", "-d", "--build"], env)
    container_id = run([*base, "ps", "-q", "chromium"], env).stdout.strip()
    wait_healthy(docker.from_env().containers.get(container_id), since=started)
    check_original_harness(_url(env, "DESKTOPD"), _url(env, "SIDECAR"))
