"""POST /playwright: Python Playwright code run against the live browser, in a child process
(sidecar/agent/playwright_runner.py) that is killed, with everything it started, at the timeout.

A child per call: locals cannot persist between calls, a runaway loop or a blocking call cannot
stall the sidecar, and Playwright (with its Node driver) is only loaded when it is used."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass

from httpapi.bounded import within

from .playwright_runner import Outcome

DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 300.0
# What is kept of the code's stdout and stderr each; the rest is read and dropped.
MAX_OUTPUT_BYTES = 1 << 20
READ_CHUNK = 1 << 16
# After the kill at the timeout: how long the pipes may take to close.
DRAIN_S = 5.0


def playwright_installed() -> bool:
    """Whether the runner's interpreter (this one) has Playwright: the image desktopd/chromium
    leaves it out (133 MB), desktopd/chromium-full has it (docs/images.md)."""
    return importlib.util.find_spec("playwright") is not None


def clamp_timeout(value: float | None) -> float:
    """The caller's timeout within (0, MAX_TIMEOUT_S], DEFAULT_TIMEOUT_S when absent."""
    return DEFAULT_TIMEOUT_S if value is None else min(float(value), MAX_TIMEOUT_S)


class PlaywrightRun(Outcome):
    """POST /playwright's answer: the runner's outcome and how the run went."""

    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float


@dataclass
class Output:
    """The first MAX_OUTPUT_BYTES of a stream, and whether more came."""
    data: bytearray
    truncated: bool = False

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        return text + "\n[output truncated]" if self.truncated else text


async def _collect(stream: asyncio.StreamReader, output: Output) -> None:
    while chunk := await stream.read(READ_CHUNK):
        room = MAX_OUTPUT_BYTES - len(output.data)
        if len(chunk) > room:
            output.truncated = True
        output.data += chunk[:max(room, 0)]


def _kill_group(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)     # the runner and Playwright's Node driver
    except ProcessLookupError:
        pass


async def run_playwright(code: str, ws_url: str, target_id: str | None, timeout_s: float,
                         python: str = sys.executable) -> PlaywrightRun:
    """{"result", "stdout", "stderr", "error", "success", "timed_out", "duration_s"}."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sidecar-playwright-") as workdir:
        result_path = os.path.join(workdir, "result.json")
        process = await asyncio.create_subprocess_exec(
            python, "-m", "sidecar.agent.playwright_runner", result_path,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=workdir, start_new_session=True,
            env={**os.environ, "PYTHONPATH": _package_root(), "PYTHONUNBUFFERED": "1"})
        stdout, stderr = Output(bytearray()), Output(bytearray())
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        readers = asyncio.gather(_collect(process.stdout, stdout), _collect(process.stderr, stderr))
        timed_out = False
        try:
            process.stdin.write(json.dumps({"code": code, "ws_url": ws_url,
                                            "target_id": target_id}).encode())
            process.stdin.close()
            await within(process.wait(), timeout_s)
        except asyncio.TimeoutError:
            timed_out = True
        finally:
            # Also when the caller went away (cancelled): nothing of the run is left behind.
            _kill_group(process)
            try:
                await within(asyncio.shield(readers), DRAIN_S)
            except asyncio.TimeoutError:
                readers.cancel()
            await process.wait()
        outcome = _read_outcome(result_path)
    if timed_out:
        outcome = {"success": False, "result": None,
                   "error": f"timed out after {timeout_s:g} s: the code was stopped (timeout_s, at most "
                            f"{MAX_TIMEOUT_S:g}, sets the limit)"}
    elif outcome is None:
        outcome = {"success": False, "result": None,
                   "error": f"the Playwright runner failed (exit status {process.returncode}); see stderr"}
    return {**outcome, "stdout": stdout.text(), "stderr": stderr.text(), "timed_out": timed_out,
            "duration_s": round(time.monotonic() - started, 3)}


def _read_outcome(path: str) -> Outcome | None:
    """The runner's outcome; None when it wrote none (or not whole)."""
    try:
        with open(path, encoding="utf-8") as result:
            outcome = json.load(result)
    except (OSError, ValueError):
        return None
    if not isinstance(outcome, dict) or not isinstance(outcome.get("success"), bool):
        return None
    error = outcome.get("error")
    return {"success": outcome["success"], "result": outcome.get("result"),
            "error": error if isinstance(error, str) else None}


def _package_root() -> str:
    """The directory holding the sidecar package, so the runner imports this same code."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    existing = os.environ.get("PYTHONPATH")
    return f"{root}{os.pathsep}{existing}" if existing else root
