"""A real accessible desktop for the accessibility tests: Xvfb, a private session D-Bus with the
AT-SPI bus and registry, xfwm4, desktopd on that session, and real applications (mousepad, Thunar,
xfce4-appfinder, Chromium through the sidecar). Every process is started here and stopped by PID."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from testbed.capability import have_program, require
from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.processes import terminate
from testbed.wm import wait_for_window_manager
from testbed.xvfb import Xvfb, start_xvfb
from tests.desktopd_api.conftest import client, fake_desktop, make_client  # noqa: F401 (in-process app)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
Node = dict[str, Any]


@dataclass
class Desktop:
    xvfb: Xvfb
    env: dict[str, str]
    desktopd: DesktopdProcess
    log_dir: str
    apps: list[subprocess.Popen] = field(default_factory=list)

    def tree(self, **params: Any) -> dict[str, Any]:
        resp = self.desktopd.request("GET", "/api/v1/accessibility", params=params)
        assert resp.status_code == 200, resp.text
        return resp.json()

    def tap(self, node: Node) -> None:
        center = node["center"]
        resp = self.desktopd.request("POST", "/api/v1/tablet",
                                     json={"action": "tap", "x": center["x"], "y": center["y"]})
        assert resp.status_code == 200, resp.text

    def launch(self, *argv: str) -> subprocess.Popen:
        require(have_program(argv[0]), f"{argv[0]} (see scripts/lib.sh NATIVE_PACKAGES)")
        log = open(os.path.join(self.log_dir, f"{os.path.basename(argv[0])}.log"), "ab")
        process = subprocess.Popen(list(argv), env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd=self.log_dir)
        log.close()
        self.apps.append(process)
        return process

    def wait_for(self, found: Callable[[dict[str, Any]], Any], what: str, timeout: float = 30.0,
                 **params: Any) -> Any:
        """Read the tree until ``found(tree)`` returns something truthy (applications start, menus
        open asynchronously: there is no event to wait on over HTTP)."""
        deadline = time.monotonic() + timeout
        while True:
            tree = self.tree(**params)
            result = found(tree)
            if result:
                return result
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not seen within {timeout} s")
            time.sleep(0.1)


def walk(nodes: list[Node]) -> Iterator[Node]:
    for node in nodes:
        yield node
        yield from walk(node["children"])


def find(tree_or_nodes: Any, *, role: str | None = None, name: str | None = None,
         where: Callable[[Node], bool] | None = None) -> Node | None:
    nodes = tree_or_nodes["applications"] if isinstance(tree_or_nodes, dict) else tree_or_nodes
    for node in walk(nodes):
        if role is not None and node["role"] != role:
            continue
        if name is not None and node["name"] != name:
            continue
        if where is not None and not where(node):
            continue
        return node
    return None


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desktop]:
    from desktopd.accessibility.session import start_session

    for program in ("Xvfb", "dbus-daemon", "xfwm4"):
        require(have_program(program), f"{program} (see scripts/lib.sh NATIVE_PACKAGES)")
    log_dir = str(tmp_path_factory.mktemp("a11y"))
    server = start_xvfb(1280, 800, log_path=os.path.join(log_dir, "xvfb.log"))
    session = wm = desktopd = None
    apps: list[subprocess.Popen] = []
    try:
        session = start_session(server.display, log_dir)
        home = os.path.join(log_dir, "home")
        os.makedirs(home)
        env = {**os.environ, "DISPLAY": server.display, **session.env(), "HOME": home,
               "XDG_CONFIG_HOME": os.path.join(home, ".config"),
               "XDG_CACHE_HOME": os.path.join(home, ".cache"),
               "XDG_DATA_HOME": os.path.join(home, ".local/share"), "GTK_THEME": "Adwaita"}
        env.pop("NO_AT_BRIDGE", None)
        # The WM itself stays off the bus: the tree should hold the applications under test.
        wm = subprocess.Popen(["xfwm4", "--compositor=off", "--replace"], env={**env, "NO_AT_BRIDGE": "1"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        wait_for_window_manager(server.display)
        # A sidecar URL where nothing listens: merge=browser must say so, not hang or fail.
        desktopd = start_desktopd(server.display, "--sidecar-url", "http://127.0.0.1:9", env=session.env())
        desk = Desktop(xvfb=server, env=env, desktopd=desktopd, log_dir=log_dir, apps=apps)
        yield desk
    finally:
        for process in reversed(apps):
            terminate(process)
        if desktopd is not None:
            desktopd.stop()
        if wm is not None:
            terminate(wm)
        if session is not None:
            session.stop()
        server.stop()


@dataclass
class SidecarProcess:
    process: subprocess.Popen
    url: str
    log: list[str]
    reader: threading.Thread

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return requests.request(method, self.url + path, timeout=60, **kwargs)

    def stop(self) -> None:
        terminate(self.process, timeout=15)
        self.reader.join(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()


def start_sidecar(desk: Desktop, url: str, *extra: str, timeout: float = 60.0) -> SidecarProcess:
    """``python -m sidecar URL --accessibility`` on the test desktop's display and session bus;
    ready once Chromium is up."""
    require(have_program("chromium"), "chromium (Debian package chromium)")
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidecar", url, "--display", desk.xvfb.display, "--host", "127.0.0.1",
         "--port", "0", "--accessibility", "--window-size", "1000,700", "--window-position", "20,20",
         *extra],
        cwd=ROOT, env={**desk.env, "HOME": desk.env["HOME"]}, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    events: queue.Queue[tuple[str, str] | None] = queue.Queue()
    lines: list[str] = []
    listening = re.compile(r"sidecar listening on (http://[\d.]+:\d+)")

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            match = listening.search(line)
            if match:
                events.put(("url", match.group(1)))
            if "Chromium ready" in line:
                events.put(("ready", ""))
        events.put(None)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    got: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(got) < 2:
            item = events.get(timeout=max(0.1, deadline - time.monotonic()))
            if item is None:
                break
            got[item[0]] = item[1]
    except queue.Empty:
        pass
    sidecar = SidecarProcess(proc, got.get("url", ""), lines, reader)
    if len(got) < 2:
        sidecar.stop()
        raise RuntimeError("the sidecar did not start:\n" + "".join(lines))
    return sidecar
