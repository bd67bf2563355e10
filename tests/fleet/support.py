"""What the fleet's Docker tests share."""

from __future__ import annotations

import docker

from desktopd_fleet.provision import LABEL


def fleet_containers(prefix: str) -> list:
    """The containers (running or not) a DockerDesktops with this name prefix labelled."""
    return docker.from_env().containers.list(all=True, filters={"label": f"{LABEL}={prefix}"})
