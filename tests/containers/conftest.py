"""Fixtures for the container tests (marker docker): the images are built once per session;
containers are published on 127.0.0.1 only and removed by the fixtures themselves (no Ryuk)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from testbed.capability import docker_available, require

from .support import CHROMIUM_FULL_IMAGE, CHROMIUM_IMAGE, DESKTOP_IMAGE, Desktop, build_images, remove, start_desktop

# Ryuk (testcontainers' reaper) needs its own image from a registry: none is reachable here, and
# every fixture removes what it started anyway.
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

# Building from scratch (base bootstrap + both images) runs inside the first test's timeout.
BUILD_TIMEOUT = 1800
HERE = os.path.dirname(__file__)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if str(item.path).startswith(HERE):
            item.add_marker(pytest.mark.docker)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT))


@pytest.fixture(scope="session")
def images() -> dict[str, str]:
    """The images, built (or cache-checked) once for the session: desktop, chromium and
    chromium-full (the Chromium image plus what only some users need: docs/images.md)."""
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    build_images()
    return {"desktop": DESKTOP_IMAGE, "chromium": CHROMIUM_IMAGE, "chromium-full": CHROMIUM_FULL_IMAGE}


# SIDECAR_URLS is a whitespace-separated list: the page is percent-encoded into one data: URL.
START_PAGE = "data:text/html," + quote(
    "<title>Container start page</title><h1>Container start page</h1>"
    "<button style='font-size:28px;margin:40px' onclick=\"this.textContent='Clicked'\">Press me</button>"
    "<input aria-label='Typing' style='font-size:28px;margin:40px;width:600px' "
    "oninput=\"document.title='typed:'+this.value\">")


@pytest.fixture(scope="module")
def desktop(images: dict[str, str]) -> Iterator[Desktop]:
    """The desktop image (no Chromium), with a token and a VNC password."""
    tc, running = start_desktop(images["desktop"])
    try:
        yield running
    finally:
        remove(tc)


def chromium_container(images: dict[str, str], backend: str = "x11", image: str = "chromium") -> Iterator[Desktop]:
    """The Chromium image (or chromium-full) showing START_PAGE, with a token, on the given desktop
    backend."""
    tc, running = start_desktop(images[image], ports=(8080, 8122, 6080, 5900),
                                env={"SIDECAR_URLS": START_PAGE, "WIDTH": "1280", "HEIGHT": "800",
                                     "DESKTOPD_BACKEND": backend})
    try:
        yield running
    finally:
        remove(tc)


@pytest.fixture(scope="module")
def chromium_desktop(images: dict[str, str]) -> Iterator[Desktop]:
    """The Chromium image showing START_PAGE, with a token (X11; test_chromium_image.py runs its
    tests on both backends)."""
    yield from chromium_container(images)
