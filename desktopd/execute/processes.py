"""Running commands for POST /api/v1/execute, on the event loop (never on the X thread).

Each command gets its own session/process group, so a timeout kills everything it started.
Output beyond the cap is drained (a full pipe would stall the child) but not kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import TypedDict

from httpapi.bounded import within

READ_CHUNK = 64 * 1024
# After the main process exits, children that still hold its stdout/stderr get this long before
# the group is killed: execute returns, it does not wait for background daemons (use detach).
PIPE_GRACE_S = 1.0


class RunResult(TypedDict):
    """run's answer (POST /api/v1/execute's, as it is)."""
    exit_code: int | None
    signal: str | None           # the signal's name when one ended the command
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    stdout_bytes: int            # all that was written, kept or not
    stderr_bytes: int
    duration_s: float
    pid: int


class Detached(TypedDict):
    """detach's answer."""
    pid: int
    detached: bool
    log: str | None              # where the app's output goes; None: discarded


class CommandError(Exception):
    """The command could not be started; ``field`` names the request field at fault."""

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail)
        self.field = field
        self.detail = detail


@dataclass
class Captured:
    data: bytearray
    total: int = 0

    def truncated(self) -> bool:
        return self.total > len(self.data)


async def _drain(stream: asyncio.StreamReader | None, cap: int) -> Captured:
    out = Captured(bytearray())
    if stream is None:
        return out
    while True:
        chunk = await stream.read(READ_CHUNK)
        if not chunk:
            return out
        out.total += len(chunk)
        room = cap - len(out.data)
        if room > 0:
            out.data += chunk[:room]


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes | None) -> None:
    if stdin is None:
        return
    try:
        if data:
            stdin.write(data)
            await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the child did not read all of it: its business, not an error
    finally:
        stdin.close()


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def check_cwd(cwd: str | None) -> None:
    if cwd is not None and not os.path.isdir(cwd):
        raise CommandError("cwd", f"not a directory: {cwd!r}")


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Process.wait() also waits for the pipes to close; this one tells when the process exits,
    so a background child that keeps stdout open cannot stretch execute to its timeout."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def start_error(argv: list[str], exc: OSError) -> CommandError:
    """Why a program could not be started, as a 422 on the ``command`` field."""
    if isinstance(exc, FileNotFoundError):
        return CommandError("command", f"no such program: {argv[0]!r}")
    if isinstance(exc, PermissionError):
        return CommandError("command", f"not executable: {argv[0]!r}")
    return CommandError("command", f"cannot start {argv[0]!r}: {exc.strerror or exc}")


async def _spawn_piped(argv: list[str], *, cwd: str | None, env: dict[str, str], stdin: int
                       ) -> tuple[asyncio.SubprocessTransport, _ExitAwareProtocol]:
    """``argv`` in a new session, stdout and stderr piped; ``stdin`` a subprocess constant."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.subprocess_exec(lambda: _ExitAwareProtocol(READ_CHUNK, loop), *argv,
                                          start_new_session=True, cwd=cwd, env=env, stdin=stdin,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        raise start_error(argv, exc) from None


async def run(argv: list[str], *, cwd: str | None, env: dict[str, str], stdin: bytes | None,
              timeout: float, max_output: int) -> RunResult:
    check_cwd(cwd)
    started = time.monotonic()
    transport, protocol = await _spawn_piped(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    pid = transport.get_pid()
    readers = [asyncio.ensure_future(_drain(protocol.stdout, max_output)),
               asyncio.ensure_future(_drain(protocol.stderr, max_output))]
    feeder = asyncio.ensure_future(_feed(protocol.stdin, stdin))
    timed_out = False
    try:
        try:
            await within(asyncio.shield(protocol.exited), timeout)
        except asyncio.TimeoutError:
            timed_out = True
            kill_group(pid)
            await protocol.exited
        done, _ = await asyncio.wait(readers, timeout=PIPE_GRACE_S)
        if len(done) < len(readers):
            kill_group(pid)  # background children still hold the pipes: end them
            await asyncio.wait(readers, timeout=PIPE_GRACE_S)
    finally:
        if transport.get_returncode() is None:  # cancelled (client went away): leave nothing running
            kill_group(pid)
        for task in (*readers, feeder):
            if not task.done():
                task.cancel()
        await asyncio.gather(*readers, feeder, return_exceptions=True)
        transport.close()  # closes pipes a setsid'd grandchild may still hold
    out = readers[0].result() if not readers[0].cancelled() else Captured(bytearray())
    err = readers[1].result() if not readers[1].cancelled() else Captured(bytearray())
    code = transport.get_returncode()
    return {
        "exit_code": code,
        "signal": signal.Signals(-code).name if code is not None and code < 0 else None,
        "timed_out": timed_out,
        "stdout": out.data.decode("utf-8", "replace"),
        "stderr": err.data.decode("utf-8", "replace"),
        "stdout_truncated": out.truncated(),
        "stderr_truncated": err.truncated(),
        "stdout_bytes": out.total,
        "stderr_bytes": err.total,
        "duration_s": round(time.monotonic() - started, 4),
        "pid": pid,
    }


def _log_path(log_dir: str, argv: list[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(argv[0]))[:40] or "app"
    return os.path.join(log_dir, f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns()}.log")


async def detach(argv: list[str], *, cwd: str | None, env: dict[str, str],
                 log_dir: str | None) -> Detached:
    """Start a GUI app in its own session and return at once with its pid.

    A daemon thread waits for the app so it never lingers as a zombie; the app outlives
    desktopd (a desktopd restart must not close the user's windows)."""
    check_cwd(cwd)
    log_path = None
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
        log_path = _log_path(log_dir, argv)

    def launch() -> subprocess.Popen:
        with open(log_path or os.devnull, "ab") as log:
            try:
                return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                raise start_error(argv, exc) from None

    proc = await asyncio.get_running_loop().run_in_executor(None, launch)
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
    return {"pid": proc.pid, "detached": True, "log": log_path}
