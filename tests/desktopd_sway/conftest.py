"""Fixtures for the Sway backend's integration tests: a private headless Sway per module (the
real compositor, never faked), and desktopd's Sway backend on it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from desktopd.sway.desktop import SwayDesktop
from testbed.sway import Sway, running_sway

WIDTH, HEIGHT = 1280, 800


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here) and "live" in item.path.name:
            item.add_marker(pytest.mark.sway)


@pytest.fixture(scope="module")
def sway() -> Iterator[Sway]:
    with running_sway(WIDTH, HEIGHT) as started:
        yield started


@pytest.fixture
def sway_desktop(sway: Sway, monkeypatch: pytest.MonkeyPatch) -> Iterator[SwayDesktop]:
    monkeypatch.setenv("XDG_RUNTIME_DIR", sway.runtime_dir)
    monkeypatch.setenv("SWAYSOCK", sway.swaysock)
    desk = SwayDesktop(sway.wayland_display)
    try:
        yield desk
    finally:
        desk.executor.submit(desk.close).result(10)
        desk.executor.shutdown()
