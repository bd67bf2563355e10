"""OSWorld's Provider and VMManager over desktopd_fleet's DockerDesktops.

DesktopEnv asks its provider for ``ip:server_port:chromium_port:vnc_port:vlc_port``; here each is
the host port Docker published on 127.0.0.1 (OSWorld's API 5000, the CDP forward 9222 a task's
socat opens, noVNC 6080; there is no VLC: 0). Reverting is desktopd's POST /api/v1/reset (windows
closed, input released, Chromium on a fresh profile), not a new VM."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping

import requests
from desktop_env.providers.base import Provider, VMManager

from desktopd_fleet.provision import (
    DEFAULT_IMAGE,
    DesktopLost,
    DockerDesktops,
    DockerLease,
)
from desktopd_kit import Desktop

OSWORLD_PORT = 5000
CDP_PORT = 9222
NOVNC_PORT = 6080
READY_TIMEOUT_S = 120.0
READY_POLL_S = 0.2
# OSWorld's API is tokenless: DESKTOPD_INSECURE=1 allows it (the ports are on host loopback only;
# desktop-init refuses it for any other publish address); desktopd's own API keeps its token.
OSWORLD_ENV = {"DESKTOPD_OSWORLD": "1", "DESKTOPD_INSECURE": "1"}


def osworld_desktops(image: str = DEFAULT_IMAGE, env: Mapping[str, str] | None = None) -> DockerDesktops:
    return DockerDesktops(image=image, env={**OSWORLD_ENV, **(env or {})}, name_prefix="desktopd-osworld",
                          extra_ports=(OSWORLD_PORT, CDP_PORT, NOVNC_PORT))


def wait_for_screenshot(url: str, timeout: float = READY_TIMEOUT_S) -> None:
    """Until OSWorld's API answers /screenshot (what OSWorld's own providers wait for)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{url}/screenshot", timeout=10).status_code == 200:
                return
        except requests.RequestException:
            pass
        if time.monotonic() >= deadline:
            raise DesktopLost(f"{url}/screenshot did not answer within {timeout:.0f}s")
        time.sleep(READY_POLL_S)


class DesktopdProvider(Provider):
    """One desktopd container per DesktopEnv, started once and reset between tasks."""

    def __init__(self, region: str | None = None, desktops: DockerDesktops | None = None) -> None:
        super().__init__(region)
        self.desktops = desktops or osworld_desktops()
        self.lease: DockerLease | None = None

    def start_emulator(self, path_to_vm: str, headless: bool, os_type: str = "Ubuntu") -> None:
        if self.lease is not None and self.lease.running():
            return   # DesktopEnv starts again after every revert: the container is still there
        self.lease = self.desktops.start()
        try:
            wait_for_screenshot(self.osworld_url())
        except BaseException:
            self.stop_emulator(path_to_vm)
            raise

    def _lease(self) -> DockerLease:
        if self.lease is None:
            raise RuntimeError("the desktop is not started (start_emulator first)")
        return self.lease

    def osworld_url(self) -> str:
        return f"http://127.0.0.1:{self._lease().ports[OSWORLD_PORT]}"

    def desktop(self) -> Desktop:
        endpoint = self._lease().endpoint
        return Desktop(endpoint.desktopd_url, endpoint.token, endpoint.sidecar_url)

    def get_ip_address(self, path_to_vm: str) -> str:
        ports = self._lease().ports
        return f"127.0.0.1:{ports[OSWORLD_PORT]}:{ports[CDP_PORT]}:{ports[NOVNC_PORT]}:0"

    def save_state(self, path_to_vm: str, snapshot_name: str) -> None:
        raise NotImplementedError("desktopd reverts by resetting the running desktop; it keeps no snapshots")

    def revert_to_snapshot(self, path_to_vm: str, snapshot_name: str) -> str:
        self.desktop().reset()
        return path_to_vm

    def stop_emulator(self, path_to_vm: str, *args: object, **kwargs: object) -> None:
        if self.lease is not None:
            self.lease.release()
            self.lease = None


class DesktopdVMManager(VMManager):
    """No VM images to download or register: the "path" is the container image."""

    def __init__(self, image: str = DEFAULT_IMAGE) -> None:
        self.image = image

    def initialize_registry(self, **kwargs: object) -> None:
        return None

    def add_vm(self, vm_path: str, **kwargs: object) -> None:
        return None

    def delete_vm(self, vm_path: str, **kwargs: object) -> None:
        return None

    def occupy_vm(self, vm_path: str, pid: int, **kwargs: object) -> None:
        return None

    def list_free_vms(self, **kwargs: object) -> list[str]:
        return [self.image]

    def check_and_clean(self, **kwargs: object) -> None:
        return None

    def get_vm_path(self, **kwargs: object) -> str:
        return self.image


Factory = Callable[..., tuple[VMManager, Provider]]


def register(image: str = DEFAULT_IMAGE, env: Mapping[str, str] | None = None) -> Factory:
    """After this, ``DesktopEnv(provider_name="docker", ...)`` runs on desktopd containers of
    ``image`` (DesktopEnv accepts only its own provider names, and "docker" is the one whose
    semantics match: a local container, no snapshots). Returns the factory now in place."""
    from desktop_env import providers

    original: Factory = getattr(providers.create_vm_manager_and_provider, "desktopd_original",
                                providers.create_vm_manager_and_provider)

    def create(provider_name: str, region: str, use_proxy: bool = False) -> tuple[VMManager, Provider]:
        if provider_name.lower().strip() == "docker":
            return DesktopdVMManager(image), DesktopdProvider(region, osworld_desktops(image, env))
        return original(provider_name, region, use_proxy=use_proxy)

    # register() twice wraps once: the factory keeps the one it wraps, as its own attribute.
    vars(create)["desktopd_original"] = original
    providers.create_vm_manager_and_provider = create
    # desktop_env.desktop_env imported the name itself; patch it there too when it is loaded.
    loaded = sys.modules.get("desktop_env.desktop_env")
    if loaded is not None:
        vars(loaded)["create_vm_manager_and_provider"] = create     # the module's namespace
    return create
