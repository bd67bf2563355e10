"""Process checks for tests, safe against the process exiting while it is looked at."""

from __future__ import annotations


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
