"""Schemathesis (from PyPI) against both daemons' own OpenAPI documents, on real parts: desktopd on
an Xvfb, the sidecar with a headless Chromium. Its conformance checks hold: no 5xx, every status
and content type documented, requests the document calls invalid are refused, authentication
enforced, and requests the document calls valid are accepted.

Not fuzzed: /api/v1/execute and the sidecar's /playwright (they would run generated commands or
code on this machine), the AT-SPI routes (they need a session bus; tests/accessibility covers
their 4xx/503), the sidecar's /mcp (JSON-RPC whose statuses the MCP SDK decides;
tests/agent_live drives it with the SDK's client), and the operations that take real time by
design: the vendors' computer actions (waits and key holds up to 100 s, a screenshot each),
screen recording (an ffmpeg per call), a demonstration's followed action stream (open until the
capture ends, tests/demonstration checks its 4xx) and both resets (a Chromium restart each);
tests/computer_use and tests/sidecar_service/test_sidecar_reset.py check their 422s. Acceptance of valid
requests is checked only where validity is all in the document: the other operations also have
rules OpenAPI cannot state (one of text/keys/events, quality only with jpeg/webp, a key name in
the keymap, a point on the screen), listed in their descriptions, and answer 422 naming the field.
The sidecar's Chromium goes through a dead proxy: generated URLs never reach the network."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from testbed.desktopd import start_desktopd
from testbed.xvfb import start_xvfb
from tests.sidecar_service.support import SidecarProcess

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
FULLY_DESCRIBED = r"^/(health|openapi\.json|api/v1/(openapi\.json|tree|windows/\{id\}|clipboard))$"
SLOW_OR_UNSAFE = r"^/api/v1/(accessibility|computer/|recording|demonstration|reset|vision/act)"
LONGEST_WAIT_S = 60    # the sidecar's longest request by design: a wait act's timeout maximum


def schemathesis(url: str, token: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    # A directory of its own each run: schemathesis keeps a cache of earlier failures in its working
    # directory and replays them, which would tie one run's outcome to another's.
    with tempfile.TemporaryDirectory(prefix="schemathesis-") as workdir:
        return subprocess.run([SCHEMATHESIS, "run", url, "-H", f"Authorization: Bearer {token}",
                               "--workers", "1", "--request-timeout", "30", "--max-examples", "12",
                               "--phases", "examples,coverage,fuzzing", "--seed", "20261124", *args],
                              capture_output=True, text=True, timeout=timeout, cwd=workdir,
                              env={**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_TELEMETRY": "false"})


def assert_clean(result: subprocess.CompletedProcess) -> str:
    """The run's "N generated, ..." line, once it found nothing."""
    assert result.returncode == 0, f"schemathesis found failures:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    counts = re.search(r"(\d+) generated[^\n]*", result.stdout)
    assert counts, result.stdout[-2000:]
    return counts.group(0)


@pytest.mark.timeout(600)
def test_desktopd_conforms_to_its_openapi_document(tmp_path: Path, capsys) -> None:
    xvfb = start_xvfb(1280, 800, log_path=str(tmp_path / "xvfb.log"))
    token = secrets.token_urlsafe(16)
    server = start_desktopd(xvfb.display, env={"DESKTOPD_TOKEN": token})
    try:
        spec = server.url + "/api/v1/openapi.json"
        checks = assert_clean(schemathesis(spec, token, "-c", "all", "--exclude-checks", "positive_data_acceptance",
                                           "--exclude-path", "/api/v1/execute",
                                           "--exclude-path-regex", SLOW_OR_UNSAFE))
        accepted = assert_clean(schemathesis(spec, token, "-c", "positive_data_acceptance",
                                             "--include-path-regex", FULLY_DESCRIBED))
        with capsys.disabled():
            print(f"\n[schemathesis] desktopd: all checks: {checks}; acceptance: {accepted}")
    finally:
        server.stop()
        xvfb.stop()


@pytest.mark.timeout(900)
async def test_the_sidecar_conforms_to_its_openapi_document(capsys) -> None:
    token = secrets.token_urlsafe(16)
    sidecar = await SidecarProcess.start(
        ["--headless", "--chromium-flag=--proxy-server=http://127.0.0.1:9",
         "--chromium-flag=--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"],
        # DELETE /profiles/{name} with generated names: never on a real profile directory.
        env={"SIDECAR_TOKEN": token, "SIDECAR_PROFILES_DIR": tempfile.mkdtemp(prefix="fuzz-profiles-")})
    try:
        await sidecar.wait_for_line(r"Chromium ready", 60)
        spec = sidecar.base_url + "/openapi.json"
        # /reset restarts Chromium (seconds each): tests/sidecar_service/test_sidecar_reset.py.
        all_checks = ("-c", "all", "--exclude-checks", "positive_data_acceptance", "--exclude-path", "/reset",
                      "--exclude-path", "/playwright", "--exclude-path", "/mcp")
        checks = assert_clean(await asyncio.to_thread(schemathesis, spec, token, *all_checks,
                                                      "--exclude-path", "/act"))
        # /act on its own, with room for its longest request by design: a generated tab id such
        # as "0" is a unique prefix of the real tab's id one run in 16, and a wait act on it then
        # takes up to its timeout before its 408 (these options, given last, win).
        acts = assert_clean(await asyncio.to_thread(
            schemathesis, spec, token, *all_checks, "--include-path", "/act",
            "--max-response-time", str(LONGEST_WAIT_S + 5), "--request-timeout", str(LONGEST_WAIT_S + 10),
            timeout=480))
        accepted = assert_clean(await asyncio.to_thread(schemathesis, spec, token, "-c", "positive_data_acceptance",
                                                        "--include-path-regex", FULLY_DESCRIBED))
        with capsys.disabled():
            print(f"\n[schemathesis] sidecar: all checks: {checks}; /act: {acts}; acceptance: {accepted}")
    finally:
        await sidecar.stop()
