"""Stopping a child process the tests (or a benchmark) started, always bounded."""

from __future__ import annotations

import os
import signal
import subprocess


def terminate(process: subprocess.Popen, *, group: bool = False, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it is still there after ``timeout`` s; reaped either way.
    ``group``: the child was started with start_new_session=True; signal everything it spawned."""
    if process.poll() is not None:
        return
    try:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        process.wait(timeout=timeout)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        except ProcessLookupError:
            pass
        process.wait(timeout=10)
