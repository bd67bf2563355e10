"""A real Xvfb for tests, ready when Xvfb itself says so (-displayfd), stopped by PID."""

from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import dataclass

from .processes import terminate


@dataclass
class Xvfb:
    process: subprocess.Popen
    display: str
    width: int
    height: int

    def stop(self) -> None:
        terminate(self.process)


def start_xvfb(width: int = 1280, height: int = 800, depth: int = 24, *, log_path: str | None = None,
               extra_args: tuple[str, ...] = (), timeout: float = 20.0) -> Xvfb:
    """Start Xvfb on a free display number; return once it accepts connections."""
    read_fd, write_fd = os.pipe()
    log = open(log_path or os.devnull, "ab")
    try:
        process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x{depth}",
             "-nolisten", "tcp", "-noreset", "+extension", "XTEST", *extra_args],
            pass_fds=(write_fd,), stdout=log, stderr=log, stdin=subprocess.DEVNULL,
        )
    finally:
        os.close(write_fd)
        log.close()
    try:
        number = _read_display_number(read_fd, process, timeout)
    finally:
        os.close(read_fd)
    return Xvfb(process=process, display=f":{number}", width=width, height=height)


def _read_display_number(fd: int, process: subprocess.Popen, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            process.kill()
            raise TimeoutError("Xvfb did not report its display number in time")
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            chunk = os.read(fd, 64)
            if not chunk:
                raise RuntimeError(f"Xvfb exited with {process.wait()} before it was ready")
            data += chunk
    return int(data.strip())
