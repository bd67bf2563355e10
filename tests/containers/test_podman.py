"""The Chromium image under rootless Podman (Debian's 4.3), as a Podman user brings it up:
scripts/up.sh picks Podman, builds the image with `podman build` from the same Dockerfile and runs
it with `podman run`. On this machine rootless Podman cannot publish ports (slirp4netns cannot
open /dev/net/tun) and rootful Podman stops at runc's `error setting rlimits`, so the container
runs on the host's network (up.sh's DESKTOPD_NETWORK=host) with every service on 127.0.0.1 at a
free port; docs/images.md ("Podman") says what a normal host does instead.

The user (desktopd-podman) and Podman come from scripts/podman-user.sh. The base image is
handed over from Docker (`docker save | podman load`) rather than bootstrapped a second time;
the build itself is Podman's, in a copy of the checkout the user can read, with the wheelhouse
the Docker build already filled."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from testbed.capability import require

from .support import ROOT
from .test_compose import free_port
from .test_first_run import copy_fresh_clone

USER = "desktopd-podman"
BUILD_TIMEOUT = 1800


@dataclass
class PodmanUser:
    name: str
    home: Path

    def run(self, argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """argv as the user, in a clean environment (its own HOME and runtime dir)."""
        environment = {"HOME": str(self.home), "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                       "LANG": "C.UTF-8", **(env or {})}
        return subprocess.run(["runuser", "-u", self.name, "--", "env", "-i",
                               *(f"{key}={value}" for key, value in environment.items()), *argv],
                              cwd=cwd or self.home, input=stdin, capture_output=True, timeout=timeout)


@pytest.fixture(scope="module")
def podman_user(images: dict[str, str]) -> PodmanUser:
    require(shutil.which("runuser") is not None and os.geteuid() == 0,
            "root (to create the rootless Podman user) and runuser")
    made = subprocess.run([str(ROOT / "scripts" / "podman-user.sh"), "ensure", USER],
                          capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr
    user = PodmanUser(USER, Path(made.stdout.strip().splitlines()[-1]))
    require(user.run(["podman", "--version"]).returncode == 0, "podman (scripts/podman-user.sh installs it)")
    base = subprocess.run(["sed", "-n", "s/^ARG BASE_IMAGE=//p", str(ROOT / "images/desktop/Dockerfile")],
                          capture_output=True, text=True, check=True).stdout.splitlines()[0]
    if user.run(["podman", "image", "inspect", base]).returncode != 0:
        saved = subprocess.run(["docker", "save", base], capture_output=True, timeout=300, check=True).stdout
        loaded = user.run(["podman", "load"], stdin=saved, timeout=300)
        assert loaded.returncode == 0, loaded.stderr.decode()
    return user


@dataclass
class Stack:
    desktopd: str
    sidecar: str
    container: str
    up_log: str
    title: str   # of the page Chromium shows


@pytest.fixture(scope="module")
def podman_stack(podman_user: PodmanUser) -> Iterator[Stack]:
    tag = f"podman-{secrets.token_hex(3)}"
    container = f"desktopd-test-podman-{secrets.token_hex(3)}"
    checkout = podman_user.home / f"checkout-{tag}"
    copy_fresh_clone(checkout)
    for wheel in (ROOT / "images/chromium/wheelhouse").iterdir():   # filled by the Docker build
        shutil.copy2(wheel, checkout / "images/chromium/wheelhouse" / wheel.name)
    subprocess.run(["chown", "-R", f"{podman_user.name}:", str(checkout)], check=True)
    ports = {name: free_port() for name in ("DESKTOPD", "SIDECAR", "NOVNC", "VNC", "START_PAGES")}
    # A title no other desktop on this host shows: the host's network holds other X servers.
    title = f"podman-{secrets.token_hex(4)}"
    env = {"CONTAINER_ENGINE": "podman", "DESKTOPD_NETWORK": "host", "DESKTOPD_IMAGE_TAG": tag,
           "SIDECAR_URLS": f"data:text/html,<title>{title}</title><h1>{title}</h1>",
           "DESKTOPD_CONTAINER": container, "SKIP_WHEELHOUSE": "1",
           **{f"{name}_PUBLISHED_PORT": str(port) for name, port in ports.items()}}
    try:
        up = podman_user.run(["scripts/up.sh", "-d"], cwd=checkout, env=env, timeout=BUILD_TIMEOUT)
        log = up.stdout.decode(errors="replace") + up.stderr.decode(errors="replace")
        assert up.returncode == 0, log[-6000:]
        yield Stack(f"http://127.0.0.1:{ports['DESKTOPD']}", f"http://127.0.0.1:{ports['SIDECAR']}", container, log,
                    title)
    finally:
        podman_user.run(["podman", "rm", "-f", container], timeout=120)
        # The tag only: the build's cached layers stay for the next run on this machine.
        podman_user.run(["podman", "rmi", f"localhost/desktopd/chromium:{tag}"], timeout=120)
        shutil.rmtree(checkout, ignore_errors=True)


def wait_ok(url: str, what: str, timeout: float = 180) -> dict:
    """GET url until it answers 200 with status ok (bounded); its last answer otherwise fails."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            response = requests.get(url, timeout=5)
            if response.status_code == 200 and response.json().get("status") == "ok":
                return response.json()
            last = f"{response.status_code} {response.text[:300]}"
        except requests.RequestException as error:
            last = repr(error)
        time.sleep(0.5)
    raise AssertionError(f"{what} not ok within {timeout:.0f}s: {last}")


def test_up_sh_picks_podman_where_docker_is_absent(tmp_path: Path) -> None:
    # A PATH with podman and without docker: the choice scripts/up.sh and build-images.sh make.
    podman = shutil.which("podman")
    require(podman is not None, "podman (scripts/podman-user.sh installs it)")
    only_podman = tmp_path / "bin"
    only_podman.mkdir()
    (only_podman / "podman").symlink_to(podman)
    choose = 'PATH=$1; . scripts/lib.sh; container_engine'
    picked = subprocess.run(["bash", "-c", choose, "-", str(only_podman)], cwd=ROOT, capture_output=True, text=True)
    assert (picked.returncode, picked.stdout.strip()) == (0, "podman"), picked
    both = subprocess.run(["bash", "-c", choose, "-", os.environ["PATH"]], cwd=ROOT, capture_output=True, text=True)
    assert both.stdout.strip() == ("docker" if shutil.which("docker") else "podman"), both
    wrong = subprocess.run(["bash", "-c", "CONTAINER_ENGINE=lxc; " + choose, "-", os.environ["PATH"]], cwd=ROOT,
                           capture_output=True, text=True)
    assert wrong.returncode == 2 and "CONTAINER_ENGINE must be docker or podman" in wrong.stderr, wrong


def test_the_chromium_image_built_and_run_by_rootless_podman_serves_both_apis(
        podman_user: PodmanUser, podman_stack: Stack) -> None:
    assert "up.sh: engine podman" in podman_stack.up_log, podman_stack.up_log[-3000:]
    assert "with podman" in podman_stack.up_log, "the image was not built by podman"
    desktopd = wait_ok(podman_stack.desktopd + "/health", "desktopd")
    wait_ok(podman_stack.sidecar + "/health", "the sidecar")
    # Rootless: the container's processes run under the user's subordinate IDs, not root's.
    inspect = podman_user.run(["podman", "inspect", "--format", "{{.State.Pid}} {{.Config.User}}",
                               podman_stack.container])
    pid, user = inspect.stdout.decode().split()
    assert user == "1000:1000" and os.stat(f"/proc/{pid}").st_uid != 0, inspect.stdout

    shot = requests.get(podman_stack.desktopd + "/api/v1/screenshot", timeout=30)
    assert shot.status_code == 200 and shot.content[:8] == b"\x89PNG\r\n\x1a\n", shot.status_code
    width, height = int.from_bytes(shot.content[16:20], "big"), int.from_bytes(shot.content[20:24], "big")
    assert (width, height) == (desktopd["screen"]["width"], desktopd["screen"]["height"])
    layout = requests.get(podman_stack.sidecar + "/layout", timeout=30)
    assert layout.status_code == 200, layout.text
    [tab] = [tab for tab in layout.json()["tabs"] if tab["visible"]]
    assert tab["title"] == podman_stack.title and tab["layout"]["nodeCount"] > 0, tab
    # desktopd is on the container's own X server, the one this Chromium shows on (not another X
    # server of the host's network): its window list has the page's window.
    tree = requests.get(podman_stack.desktopd + "/api/v1/tree", timeout=30)
    assert tree.status_code == 200 and podman_stack.title in tree.text, tree.text[:2000]
    # Every program runs (x11vnc and noVNC on 127.0.0.1 at their ports too): supervisor calls a
    # program RUNNING once it stayed up 5 s, which one that keeps failing never does (bounded).
    wanted = {"xvfb", "xfce", "x11vnc", "novnc", "desktopd", "sidecar"}
    deadline = time.monotonic() + 60
    while True:
        status = podman_user.run(["podman", "exec", podman_stack.container, "supervisorctl", "-c",
                                  "/etc/desktopd/supervisord.conf", "status"], timeout=60).stdout.decode()
        running = {line.split()[0] for line in status.splitlines() if " RUNNING " in line}
        if wanted <= running or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert wanted <= running, status
    # The image kept its HEALTHCHECK (Docker's format): Podman runs it on request.
    health = podman_user.run(["podman", "healthcheck", "run", podman_stack.container], timeout=60)
    assert health.returncode == 0, health.stdout + health.stderr
