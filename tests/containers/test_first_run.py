"""A fresh clone (no wheelhouse) builds and runs with plain compose: the Chromium image's build
downloads its pinned wheels itself, verified with the CA bundle handed over the documented way
(images/chromium/build-ca/, as scripts/up.sh does; this host intercepts TLS). When the build
cannot get them it stops with one line that names the fix."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
import requests

from testbed.capability import require

from .support import ROOT, wait_healthy
from .test_compose import compose_command, free_port, run
from .test_ocr_runtime import ocr_pin, probe

# The Chromium image's build installs pyautogui (both images' stage) before Playwright: either
# install's failure line, whichever comes first.
FIX_LINE_START = re.compile(r"desktopd (chromium|images) build: ")


def copy_fresh_clone(destination: Path) -> Path:
    """The repository as a fresh clone has it: the files git tracks (and new ones it would track),
    none it ignores, so no wheelhouse and no CA bundle."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        target = destination / name
        if source.is_symlink():  # as git keeps it: the link itself (images/desktop/rootfs/home/user)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(os.readlink(source))
        elif source.is_file():  # a tracked file deleted in the work tree is not in the clone either
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode)
    assert not list((destination / "images/chromium/wheelhouse").glob("*.whl"))
    return destination


@pytest.fixture
def fresh_compose(images: dict[str, str], tmp_path: Path) -> Iterator[tuple[list[str], dict[str, str], Path]]:
    """compose in a fresh clone, under a project and image tag of its own (removed afterwards)."""
    command = compose_command()
    require(command is not None, "docker-compose (Debian package docker-compose) or docker compose v2")
    clone = copy_fresh_clone(tmp_path / "clone")
    project = f"desktopd-fresh-{secrets.token_hex(4)}"
    tag = f"freshclone-{secrets.token_hex(3)}"
    # The full image: POST /playwright proves the Playwright wheel the build fetched works.
    env = {**os.environ, "COMPOSE_PROJECT_NAME": project, "DESKTOPD_IMAGE_TAG": tag,
           "DESKTOPD_IMAGE_TARGET": "chromium-full",
           **{f"{name}_PUBLISHED_PORT": str(free_port()) for name in ("DESKTOPD", "SIDECAR", "NOVNC", "VNC")}}
    base = [*command, "-f", str(clone / "compose.yaml"), "-p", project]
    try:
        yield base, env, clone
    finally:
        subprocess.run([*base, "down", "-v", "--remove-orphans", "--timeout", "20"], env=env, cwd=clone,
                       capture_output=True, timeout=180)
        subprocess.run(["docker", "rmi", f"desktopd/chromium-full:{tag}"],
                       capture_output=True, timeout=120)


def hand_build_ca(clone: Path) -> None:
    """The documented handover, by the function scripts/up.sh runs."""
    subprocess.run(["bash", "-c", '. scripts/lib.sh && hand_build_ca "$PWD"'], cwd=clone, check=True)
    assert (clone / "images/chromium/build-ca/ca-certificates.crt").stat().st_size > 0


def test_fresh_clone_builds_and_runs_with_plain_compose(
        fresh_compose: tuple[list[str], dict[str, str], Path]) -> None:
    base, env, clone = fresh_compose
    hand_build_ca(clone)
    started = time.time()
    run([*base, "up", "-d", "--build"], env, timeout=1500)
    container = docker.from_env().containers.get(run([*base, "ps", "-q", "chromium"], env).stdout.strip())
    wait_healthy(container, since=started)
    sidecar = f"http://127.0.0.1:{env['SIDECAR_PUBLISHED_PORT']}"
    # The wheels the build fetched work: the pinned Playwright drives the image's own browser.
    response = requests.post(f"{sidecar}/playwright", timeout=120, json={
        "code": "from importlib.metadata import version\nprint(version('playwright'))\n"
                "return await page.evaluate('1 + 1')"})
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True and response.json()["result"] == 2, response.text
    pins = subprocess.run([sys.executable, "images/chromium/build/agent-pins.py", "pyproject.toml"], cwd=clone,
                          capture_output=True, text=True, check=True).stdout.split()
    assert f"playwright=={response.json()['stdout'].strip()}" in pins
    # So does the OCR runtime's: the pinned ONNX Runtime runs a model under desktopd's python3.
    answer = probe(f"desktopd/chromium-full:{env['DESKTOPD_IMAGE_TAG']}")
    assert answer["y"] == [2.0, -4.0, 7.0] and answer["onnxruntime"] == ocr_pin(), answer
    # What the build needed and the image does not: no pip, no wheels, no CA bundle of the host's.
    code, output = container.exec_run(["bash", "-c", "for path in /opt/desktopd/venv/bin/pip /tmp/agent /tmp/ocr; do "
                                                     "test ! -e $path || echo $path; done"])
    assert code == 0 and output == b"", output


def test_build_that_cannot_get_the_wheels_stops_with_one_line_naming_the_fix(
        fresh_compose: tuple[list[str], dict[str, str], Path]) -> None:
    base, env, clone = fresh_compose
    # A CA that verifies nothing PyPI presents: the download fails on any host, proxy or not.
    ca = clone / "images/chromium/build-ca/ca-certificates.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=nobody",
                    "-keyout", str(clone / "unused.key"), "-out", str(ca)], capture_output=True, check=True)
    # --force-rm: the classic builder would keep the failed step's container on every run.
    result = subprocess.run([*base, "build", "--force-rm"], env=env, cwd=clone, capture_output=True, text=True,
                            timeout=1500)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    lines = [line for line in output.splitlines() if FIX_LINE_START.search(line)]
    assert len(lines) == 1, output
    assert "PyPI's certificate did not verify" in lines[0]
    for fix in ("scripts/up.sh", "images/chromium/build-ca/ca-certificates.crt", "scripts/wheelhouse.sh"):
        assert fix in lines[0], lines[0]
    # pip's own log (tracebacks, retries) is not dumped around it.
    assert "Traceback" not in output and "Retrying" not in output, output
