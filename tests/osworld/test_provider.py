"""desktopd_osworld's Provider as DesktopEnv drives it: the address string DesktopEnv splits, a
start that finds the running desktop, revert through desktopd's reset, and register()."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import requests
from desktop_env.controllers.python import PythonController

from desktopd_osworld import DesktopdProvider, DesktopdVMManager, register
from desktopd_osworld.provider import osworld_desktops
from testbed.capability import docker_available, require
from tests.containers.support import CHROMIUM_IMAGE, build_images


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


def test_a_new_desktop_answers_with_chromes_files_and_its_windows_in_the_tree() -> None:
    """The accessibility tree asked for as soon as a new container's /screenshot answers (what
    DesktopEnv's first observation does): complete, with the browser's window and its toolbar, or
    complete false saying what it lacks (it had only XFCE's applications, 4 nodes, and said nothing)."""
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    build_images()
    fresh = DesktopdProvider(desktops=osworld_desktops(CHROMIUM_IMAGE, {"WIDTH": "1280", "HEIGHT": "800"}))
    fresh.start_emulator(CHROMIUM_IMAGE, headless=True)
    try:
        # The first task's setup finds Chrome's files as every later one does after a reset.
        preferences = requests.post(f"{fresh.osworld_url()}/setup/execute", timeout=60, json={
            "command": "test -f /home/user/.config/google-chrome/Default/Preferences", "shell": True})
        assert preferences.json()["returncode"] == 0, preferences.text
        answer = requests.get(f"{fresh.osworld_url()}/accessibility", timeout=60).json()
        tree = ET.fromstring(answer["AT"])
        assert answer["complete"] is True, answer["pending"]
        apps = {app.get("name") for app in tree}
        assert "Chromium" in apps, apps
        assert any(node.get("name") == "Address and search bar" for node in tree.iter()), answer["AT"][:2000]
    finally:
        fresh.stop_emulator(CHROMIUM_IMAGE)
