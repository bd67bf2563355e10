"""What desktopd on Sway knows of the screen and the pointer, and says it does: settling on
evidence from its damage source (wlr-screencopy's copy_with_damage, desktopd/sway/damage.py) on a
real headless Sway, with real Wayland clients (testbed/redrawing_client.py) that stay still or
redraw every frame; and the pointer position's source (Wayland lets no client read it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from desktopd.sway.damage import SwayDamageWatcher
from desktopd.sway.desktop import SwayDesktop
from testbed.desktopd import ROOT, DesktopdProcess, start_desktopd
from testbed.polling import poll_until
from testbed.processes import terminate

from .conftest import Sway

T = TypeVar("T")
SETTLE = {"settle": 1.0, "settle_quiet": 0.1}


def wait_for(found: Callable[[], T], what: str) -> T:
    """Over HTTP, and for another process's window, there is no event to wait on: poll."""
    return poll_until(found, what, timeout=20.0, interval=0.05)


@pytest.fixture(scope="module")
def desktopd_on_sway(sway: Sway) -> Iterator[DesktopdProcess]:
    env = {"XDG_RUNTIME_DIR": sway.runtime_dir, "SWAYSOCK": sway.swaysock}
    desktopd = start_desktopd(sway.wayland_display, "--backend", "sway", "--wayland-display",
                              sway.wayland_display, env=env)
    try:
        yield desktopd
    finally:
        desktopd.stop()


def step(desktopd: DesktopdProcess, **body: Any) -> dict[str, Any]:
    response = desktopd.request("POST", "/api/v1/step", json={**SETTLE, **body})
    assert response.status_code == 200, response.text
    return response.json()


def windows(desktopd: DesktopdProcess) -> list[dict[str, Any]]:
    return desktopd.request("GET", "/api/v1/tree").json()["windows"]


def launch_client(sway: Sway, app_id: str, *flags: str) -> subprocess.Popen:
    env = {**os.environ, "XDG_RUNTIME_DIR": sway.runtime_dir, "WAYLAND_DISPLAY": sway.wayland_display}
    return subprocess.Popen([sys.executable, "-m", "testbed.redrawing_client", *flags, app_id],
                            cwd=ROOT, env=env, stdin=subprocess.DEVNULL)


def test_a_still_screen_settles_quiet_on_damage_evidence(desktopd_on_sway: DesktopdProcess) -> None:
    settled = step(desktopd_on_sway)["settled"]   # no act: nothing draws
    assert (settled["reason"], settled.get("evidence"), settled["changes"]) == ("quiet", "damage", 0), settled
    health = desktopd_on_sway.request("GET", "/health").json()
    assert health["settle"]["watching"] is True, health["settle"]


def test_a_redrawing_window_is_change_until_it_stops(sway: Sway, desktopd_on_sway: DesktopdProcess) -> None:
    client = launch_client(sway, "desktopd-redrawing", "--redraw")
    try:
        wait_for(lambda: next((w for w in windows(desktopd_on_sway) if w.get("app_id") == "desktopd-redrawing"),
                              None), "the redrawing window")
        settled = step(desktopd_on_sway)["settled"]
        assert settled["reason"] == "max" and settled["changes"] > 1, settled
    finally:
        terminate(client)
    wait_for(lambda: True if not windows(desktopd_on_sway) else None, "the window gone")
    # Sway draws the empty desktop once more after the window went: then nothing changes.
    settled = wait_for(lambda: s if (s := step(desktopd_on_sway)["settled"])["changes"] == 0 else None,
                       "a step with no change")
    assert (settled["reason"], settled["evidence"]) == ("quiet", "damage"), settled


def test_a_still_window_settles_quiet(sway: Sway, desktopd_on_sway: DesktopdProcess) -> None:
    client = launch_client(sway, "desktopd-still")
    try:
        wait_for(lambda: next((w for w in windows(desktopd_on_sway) if w.get("app_id") == "desktopd-still"),
                              None), "the still window")
        wait_for(lambda: True if step(desktopd_on_sway)["settled"]["changes"] == 0 else None,
                 "the window's first frame drawn")
        settled = step(desktopd_on_sway, keyboard={"keys": "shift"})["settled"]
        assert (settled["reason"], settled["evidence"]) == ("quiet", "damage"), settled
    finally:
        terminate(client)


def test_the_watcher_copies_no_frame_while_nothing_is_drawn(sway: Sway, sway_desktop: SwayDesktop) -> None:
    on = lambda fn, *args: sway_desktop.executor.submit(fn, *args).result(30)  # noqa: E731
    watcher = SwayDamageWatcher(sway.wayland_display)
    client = launch_client(sway, "desktopd-drawn-once")
    try:
        # Its one frame is a change covering the window (tiled: the whole output).
        first = wait_for(lambda: next(iter(watcher.log.after(0)), None), "the window's frame")
        assert first.rect[2] * first.rect[3] > 0, first
        def output_frames(count: int) -> None:
            # Each capture waits for an output frame of its own (an empty commit when nothing
            # was drawn): the compositor's clock, not a sleep.
            for _ in range(count):
                on(sway_desktop.capture_raw, (0, 0, 8, 8))

        def drawn() -> tuple[int, int] | None:   # the window's frames all arrived
            before = (watcher.log.seq, watcher.frames)
            output_frames(3)
            return before if (watcher.log.seq, watcher.frames) == before else None

        seen, frames = wait_for(drawn, "the window drawn")
        output_frames(10)      # frames pass, nothing is redrawn: the watcher copies nothing
        assert (watcher.log.seq, watcher.frames) == (seen, frames)
    finally:
        terminate(client)
    # The window going is a change again (Sway draws the empty desktop).
    wait_for(lambda: next(iter(watcher.log.after(seen)), None), "the desktop redrawn")
    assert watcher.alive
    watcher.close()
    assert watcher.log.closed_reason == "closed" and not watcher.alive


def test_the_pointer_position_says_it_is_only_what_desktopd_set(sway_desktop: SwayDesktop) -> None:
    on = lambda fn, *args: sway_desktop.executor.submit(fn, *args).result(30)  # noqa: E731
    assert on(sway_desktop.pointer_source) == "assumed"   # connected, never moved: not known
    on(sway_desktop.pointer_move, 321, 123)
    assert (on(sway_desktop.pointer_position), on(sway_desktop.pointer_source)) == ((321, 123), "last_set")
    assert on(sway_desktop.info)["pointer"]["source"] == "last_set"


def test_the_api_names_the_pointer_positions_source(desktopd_on_sway: DesktopdProcess) -> None:
    moved = step(desktopd_on_sway, tablet={"action": "move", "x": 400, "y": 300})
    assert moved["pointer"] == {"x": 400, "y": 300, "source": "last_set"}, moved["pointer"]
    health = desktopd_on_sway.request("GET", "/health").json()
    assert health["x"]["pointer"]["source"] == "last_set" and "VNC" in health["x"]["pointer"]["detail"], health
