"""The real processes of the agent tests: Xvfb, desktopd, and the sidecar
(Chromium) told desktopd's URL, each ready on its own "listening" line, logging to files,
stopped by PID."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from testbed.input_order import start_window_manager
from testbed.processes import terminate
from testbed.xvfb import Xvfb, start_xvfb
from testbed.wm import wait_for_window_manager

PAGES = Path(__file__).parent / "pages" / "agent"
ROOT = Path(__file__).resolve().parents[1]


def _start(args: Sequence[str], log: Path, patterns: Sequence[str], timeout: float) -> tuple[
        subprocess.Popen, list[re.Match[str]]]:
    out = open(log, "wb")
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=str(ROOT), stdout=out,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out.close()
    found: list[re.Match[str]] = []
    deadline = time.monotonic() + timeout
    try:
        for pattern in patterns:
            while True:
                match = re.search(pattern, log.read_text(errors="replace"))
                if match:
                    found.append(match)
                    break
                if process.poll() is not None:
                    raise RuntimeError(f"{args[0]} exited ({process.returncode}): {log.read_text()[-2000:]}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{args[0]} not ready in {timeout} s: {log.read_text()[-2000:]}")
                time.sleep(0.05)
    except BaseException:
        terminate(process)
        raise
    return process, found


@dataclass
class Stack:
    xvfb: Xvfb
    desktopd: subprocess.Popen | None
    desktopd_url: str
    sidecar: subprocess.Popen
    url: str
    downloads: Path
    window_manager: subprocess.Popen | None = None

    def stop(self) -> None:
        try:
            terminate(self.sidecar)
            if self.desktopd is not None:
                terminate(self.desktopd)
            if self.window_manager is not None:
                terminate(self.window_manager, group=True)
        finally:
            self.xvfb.stop()


def start_stack(log_dir: Path, start_url: str, *, sidecar_args: Sequence[str] = (),
                with_desktopd: bool = True, with_window_manager: bool = False) -> Stack:
    """``with_window_manager``: xfwm4 manages Chromium's window, as in the desktop image."""
    xvfb = start_xvfb(1280, 800, log_path=str(log_dir / "xvfb.log"))
    desktopd = sidecar = wm = None
    try:
        if with_window_manager:
            wm = start_window_manager(xvfb.display)
            wait_for_window_manager(xvfb.display)
        desktopd_url = ""
        if with_desktopd:
            desktopd, (listening,) = _start(["desktopd", "--display", xvfb.display, "--port", "0"],
                                            log_dir / "desktopd.log",
                                            [r"desktopd listening on (http://[\d.]+:\d+)"], 30)
            desktopd_url = listening.group(1)
        downloads = log_dir / "downloads"
        extra = ["--desktopd-url", desktopd_url] if desktopd_url else []
        sidecar, (listening, _ready) = _start(
            ["sidecar", start_url, "--display", xvfb.display, "--host", "127.0.0.1", "--port", "0",
             "--downloads-dir", str(downloads), *extra, *sidecar_args],
            log_dir / "sidecar.log", [r"sidecar listening on (http://[\d.]+:\d+)", r"Chromium ready"], 60)
    except BaseException:
        for process in (sidecar, desktopd):
            if process is not None:
                terminate(process)
        if wm is not None:
            terminate(wm, group=True)
        xvfb.stop()
        raise
    return Stack(xvfb, desktopd, desktopd_url, sidecar, listening.group(1), downloads, wm)
