"""A real `python -m desktopd` for integration tests (desktopd_api, kit),
ready when it logs the address it listens on, stopped by PID."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import requests

from testbed.processes import terminate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTENING = re.compile(r"listening on (http://\S+)")
@dataclass
class DesktopdProcess:
    process: subprocess.Popen
    url: str
    log: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None
    token: str | None = None

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        if self.token:
            headers.setdefault("Authorization", f"Bearer {self.token}")
        return requests.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def stop(self) -> None:
        terminate(self.process, timeout=15)
        if self.reader is not None:
            self.reader.join(timeout=10)  # reads to EOF, then the pipe can be closed
        self.process.stderr.close()


def start_desktopd(display: str, *extra: str, env: dict[str, str] | None = None,
                   timeout: float = 30.0) -> DesktopdProcess:
    """Run `python -m desktopd --port 0`; ready when it logs the address it listens on."""
    # DESKTOPD_TEST_PYTHON=/usr/bin/python3 runs the server on Debian's packages (as the images do).
    python = os.environ.get("DESKTOPD_TEST_PYTHON") or sys.executable
    proc = subprocess.Popen([python, "-m", "desktopd", "--display", display,
                             "--host", "127.0.0.1", "--port", "0", *extra],
                            cwd=ROOT, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: queue.Queue[str | None] = queue.Queue()
    lines: list[str] = []

    def drain() -> None:  # keeps reading so the pipe never fills; remembers the log for asserts
        for line in proc.stderr:
            lines.append(line)
            match = LISTENING.search(line)
            if match:
                found.put(match.group(1))
        found.put(None)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        url = found.get(timeout=timeout)
    except queue.Empty:
        url = None
    server = DesktopdProcess(proc, url or "", lines, reader=reader)
    if url is None:
        server.stop()
        raise RuntimeError("desktopd did not start:\n" + "".join(lines))
    return server


