"""DockerDesktops with a real container that dies while it starts (its X server refuses an
option): start() says so with the container's last log lines (the desktop's watchdog names the
program that failed), and leaves no container behind."""

from __future__ import annotations

import os

import pytest

from desktopd_fleet.provision import DesktopLost, DockerDesktops
from testbed.capability import docker_available, require
from tests.containers.support import CHROMIUM_IMAGE, build_images
from tests.fleet.support import fleet_containers

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]


def test_a_desktop_that_dies_while_starting_is_reported_with_its_log_and_removed() -> None:
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    build_images()
    prefix = f"desktopd-fleet-dies-{os.getpid()}"
    source = DockerDesktops(image=CHROMIUM_IMAGE, name_prefix=prefix, health_timeout=180,
                            env={"XVFB_ARGS": "-no-such-option"})
    try:
        with pytest.raises(DesktopLost) as caught:
            source.start()
        left = fleet_containers(prefix)
    finally:
        source.cleanup()
    message = str(caught.value)
    assert message.startswith(prefix) and "stopped before it was healthy" in message, message
    assert "its log ends:" in message and "desktop-watchdog: xvfb" in message, message
    assert left == []                  # start() removed the container it made
