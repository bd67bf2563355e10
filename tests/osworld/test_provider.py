"""desktopd_osworld's Provider as DesktopEnv drives it: the address string DesktopEnv splits, a
start that finds the running desktop, revert through desktopd's reset, and register()."""

from __future__ import annotations

import json

import requests
from desktop_env.controllers.python import PythonController

from desktopd_osworld import DesktopdProvider, DesktopdVMManager, register


def test_address_is_what_desktopenv_splits(provider: DesktopdProvider) -> None:
    host, server, chromium, vnc, vlc = provider.get_ip_address("any").split(":")
    assert host == "127.0.0.1" and int(vlc) == 0
    assert requests.get(f"http://{host}:{server}/platform", timeout=10).text == "Linux"
    assert requests.get(f"http://{host}:{vnc}/vnc.html", timeout=10).status_code == 200
    assert int(chromium) > 0


def test_revert_resets_the_running_desktop(provider: DesktopdProvider, server: str) -> None:
    container = provider.lease.container if provider.lease else None
    started = requests.post(server + "/setup/launch", headers={"Content-Type": "application/json"},
                            data=json.dumps({"command": ["xfce4-terminal", "--title", "left-over"]}),
                            timeout=30)
    assert started.status_code == 200
    opened = requests.post(server + "/setup/open_file", headers={"Content-Type": "application/json"},
                           data=json.dumps({"path": "true", "window_name": "left-over"}), timeout=60)
    assert opened.status_code == 200, opened.text
    assert provider.revert_to_snapshot("image", "init_state") == "image"
    titles = [w["title"] for w in provider.desktop().tree()["windows"]]
    assert "left-over" not in titles, titles
    provider.start_emulator("image", headless=True)   # DesktopEnv starts again after a revert
    assert provider.lease is not None and provider.lease.container is container
    host, port = provider.get_ip_address("image").split(":")[:2]
    assert PythonController(host, int(port)).get_vm_screen_size() == {"width": 1280, "height": 800}


def test_register_answers_for_docker_and_leaves_the_others() -> None:
    from desktop_env import providers

    before = providers.create_vm_manager_and_provider
    try:
        factory = register("desktopd/chromium:test")
        assert register("desktopd/chromium:test").desktopd_original is factory.desktopd_original
        manager, made = providers.create_vm_manager_and_provider("docker", None)
        assert isinstance(manager, DesktopdVMManager) and isinstance(made, DesktopdProvider)
        assert manager.get_vm_path(os_type="Ubuntu") == "desktopd/chromium:test"
        assert made.lease is None   # nothing starts before DesktopEnv asks
    finally:
        providers.create_vm_manager_and_provider = before
