"""Fixtures for desktopd's HTTP layer: an in-process app over a fake desktop (unit tests), and a
real `python -m desktopd` on each backend (integration tests, markers x11 and sway): on the
session's Xvfb, or on a private headless Sway, each with a recorder client of its own kind."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from desktopd.app import init_app
from desktopd.settings import Settings
from testbed.capability import debian_python_has, require
from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.recorder import RECORDERS, Recorder
from testbed.sway import Sway, place_window, running_sway

from .fake_desktop import FAKE_ERRORS, FakeDesktop, unwatched_settler

WIDTH, HEIGHT = 1280, 800
RECORDER_AT = (100, 100)     # where the recorder's window is, on either backend
WAYLAND_RECORDER = os.path.join(RECORDERS, "wayland_recorder.py")


@pytest.fixture
def fake_desktop() -> FakeDesktop:
    return FakeDesktop(":99")


@pytest.fixture
def make_client(aiohttp_client, fake_desktop):
    async def make(**settings):
        app = init_app(Settings(display=":99", **settings),
                       desktop_factory=lambda display: fake_desktop, x_errors=FAKE_ERRORS,
                       settler_factory=unwatched_settler)
        return await aiohttp_client(app)
    return make


@pytest.fixture
async def client(make_client):
    return await make_client()


@dataclass
class LiveDesktop:
    """A real desktop on one backend and a real desktopd driving it."""

    backend: str
    display: str                 # the X display, or the Wayland socket's name
    env: dict[str, str]          # what a client of this desktop needs in its environment
    desktopd: DesktopdProcess
    sway: Sway | None = None

    def start_desktopd(self, *extra: str, env: dict[str, str] | None = None) -> DesktopdProcess:
        """Another desktopd on the same desktop (with other settings)."""
        return start_desktopd(self.display, *self.backend_args(), *extra, env={**self.env, **(env or {})})

    def backend_args(self) -> tuple[str, ...]:
        if self.backend == "sway":
            return ("--backend", "sway", "--wayland-display", self.display)
        return ()

    def recorder(self) -> Recorder:
        """The recorder window at RECORDER_AT: Tk on X11, a Wayland client on Sway."""
        if self.sway is None:
            require(debian_python_has("tkinter"), "/usr/bin/python3 with tkinter (Debian package python3-tk)")
            return Recorder(self.display)
        env = {**os.environ, **self.env}
        env.pop("DISPLAY", None)
        rec = Recorder(None, WAYLAND_RECORDER, env=env)
        try:
            node = place_window(self.sway, rec.ready["pid"], *RECORDER_AT)
            rec.process.stdin.write("origin {x} {y}\n".format(**node["rect"]))
            rec.process.stdin.flush()
            rec.wait_for("origin")
        except BaseException:
            rec.stop()
            raise
        return rec


@pytest.fixture(scope="module", params=[pytest.param("x11", marks=pytest.mark.x11),
                                        pytest.param("sway", marks=pytest.mark.sway)])
def live(request: pytest.FixtureRequest) -> Iterator[LiveDesktop]:
    if request.param == "x11":
        xvfb = request.getfixturevalue("xvfb")
        env = {"DISPLAY": xvfb.display}
        server = start_desktopd(xvfb.display)
        try:
            yield LiveDesktop("x11", xvfb.display, env, server)
        finally:
            server.stop()
        return
    with running_sway(WIDTH, HEIGHT) as sway:
        server = start_desktopd(sway.wayland_display, "--backend", "sway", "--wayland-display",
                                sway.wayland_display, env=sway.env())
        try:
            yield LiveDesktop("sway", sway.wayland_display, sway.env(), server, sway)
        finally:
            server.stop()


@pytest.fixture
def desktopd(live: LiveDesktop) -> DesktopdProcess:
    return live.desktopd


@pytest.fixture
def recorder(live: LiveDesktop) -> Iterator[Recorder]:
    rec = live.recorder()
    try:
        yield rec
    finally:
        rec.stop()
