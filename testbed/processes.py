"""Child processes the tests (or a benchmark) started: stopping one, always bounded, and
looking at one safely while it may exit."""

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

def alive(pid: int) -> bool:
    """True while `pid` runs; a zombie (exited, not yet reaped) counts as gone.

    /proc/PID/stat can vanish between open and read (ESRCH) or before open (ENOENT): both mean
    the process is gone, never an error of the caller's test."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read()
    except (FileNotFoundError, ProcessLookupError):
        return False
    # The command name in parentheses may hold spaces and ')': the state follows the last ')'.
    state = fields.rsplit(")", 1)[-1].split()
    return bool(state) and state[0] != "Z"
