"""Fixtures for OSWorld's client against the real Chromium container (marker docker): one
container for the session (the suite's run time is mostly container starts), started and removed
by desktopd_osworld's provider itself."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from desktopd_osworld import DesktopdProvider
from desktopd_osworld.provider import osworld_desktops
from testbed.capability import docker_available, require
from tests.containers.support import CHROMIUM_IMAGE, build_images

HERE = os.path.dirname(__file__)
CONTAINER_TESTS = ("test_controller.py", "test_setup_endpoints.py", "test_provider.py",
                   "test_google_chrome.py", "test_desktop_env.py")
# The first container test of a fresh machine builds the images inside its timeout.
BUILD_TIMEOUT = 1800
SCREEN = {"WIDTH": "1280", "HEIGHT": "800"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if str(item.path).startswith(HERE) and item.path.name in CONTAINER_TESTS:
            item.add_marker(pytest.mark.docker)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT))


@pytest.fixture(scope="session")
def provider() -> Iterator[DesktopdProvider]:
    """A started desktop (the Chromium image, 1280x800, OSWorld's API on)."""
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    build_images()
    started = DesktopdProvider(desktops=osworld_desktops(CHROMIUM_IMAGE, SCREEN))
    started.start_emulator(CHROMIUM_IMAGE, headless=True)
    try:
        yield started
    finally:
        started.stop_emulator(CHROMIUM_IMAGE)


@pytest.fixture(scope="session")
def server(provider: DesktopdProvider) -> str:
    """OSWorld's API's base URL."""
    return provider.osworld_url()
