"""OSWorld's own PythonController (desktop-env from PyPI, unchanged) against the real container,
call by call: what it sends and parses is what OSWorld's VM server answers."""

from __future__ import annotations

import io
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import requests
from desktop_env.controllers.python import PythonController
from PIL import Image

from desktopd.osworld.routes import ROUTES
from desktopd_osworld import DesktopdProvider

ST = "{https://accessibility.ubuntu.example.org/ns/state}"
CP = "{https://accessibility.ubuntu.example.org/ns/component}"


@pytest.fixture(scope="module")
def controller(provider: DesktopdProvider) -> PythonController:
    host, port = provider.get_ip_address("").split(":")[:2]
    made = PythonController(host, int(port))
    made.retry_times = 1   # a failure shows at once instead of after OSWorld's retries
    return made


def test_screenshot_is_a_png_of_the_screen(controller: PythonController) -> None:
    image = Image.open(io.BytesIO(controller.get_screenshot()))
    assert image.format == "PNG" and image.size == (1280, 800)


def test_screen_size_and_platform(controller: PythonController) -> None:
    assert controller.get_vm_screen_size() == {"width": 1280, "height": 800}
    assert controller.get_vm_platform() == "Linux"


def test_pyautogui_code_drives_this_display(controller: PythonController, server: str) -> None:
    result = controller.execute_python_command("pyautogui.moveTo(321, 123); print(pyautogui.size())")
    assert result["returncode"] == 0, result
    assert result["output"].strip() == "Size(width=1280, height=800)"
    assert requests.get(f"{server}/cursor_position", timeout=10).json() == [321, 123]


def test_actions_of_the_computer_13_space_reach_the_pointer(controller: PythonController, server: str) -> None:
    controller.execute_action({"action_type": "MOVE_TO", "parameters": {"x": 640, "y": 400}})
    assert requests.get(f"{server}/cursor_position", timeout=10).json() == [640, 400]


def test_python_and_bash_scripts(controller: PythonController) -> None:
    python = controller.run_python_script("import sys; print('out'); print('err', file=sys.stderr)")
    assert (python["status"], python["output"], python["error"]) == ("success", "out\n", "err\n")
    failed = controller.run_python_script("raise SystemExit(3)")
    assert failed["status"] == "error" and failed["return_code"] == 3
    bash = controller.run_bash_script("echo one; echo two >&2; exit 4", timeout=20)
    assert bash == {"status": "error", "output": "one\ntwo\n", "error": "", "returncode": 4}
    in_dir = controller.run_bash_script("pwd", working_dir="~/Desktop")
    assert in_dir["output"] == "/home/desktop/Desktop\n"


def test_the_paths_tasks_name_exist_for_the_desktop_user(controller: PythonController) -> None:
    assert controller.get_vm_desktop_path() == "/home/desktop/Desktop"
    tree = controller.get_vm_directory_tree("/home/user")
    names = {child["name"] for child in tree["children"]}
    assert {"Desktop", "Documents", "Downloads", "Pictures"} <= names


def test_files_come_back_byte_for_byte(controller: PythonController) -> None:
    controller.run_bash_script("printf 'a\\x00b\\n' > ~/Documents/bytes.bin")
    assert controller.get_file("/home/user/Documents/bytes.bin") == b"a\x00b\n"
    assert controller.get_file("~/Documents/bytes.bin") == b"a\x00b\n"


def test_accessibility_tree_is_osworld_xml(controller: PythonController) -> None:
    root = ET.fromstring(controller.get_accessibility_tree())
    assert root.tag == "desktop-frame" and root.get("name") == "main"
    apps = [child.get("name", "").lower() for child in root]
    assert any("chromium" in name for name in apps), apps
    shown = [node for node in root.iter() if node.get(f"{ST}showing") == "true" and node.get(f"{CP}screencoord")]
    assert shown, "no node carries OSWorld's st:showing and cp:screencoord"
    corners = [tuple(int(v) for v in node.get(f"{CP}screencoord").strip("()").split(",")) for node in shown]
    assert any(0 <= x < 1280 and 0 <= y < 800 for x, y in corners), corners


def test_window_size_by_class(controller: PythonController) -> None:
    size = controller.get_vm_window_size("chromium")
    assert size is not None and 0 < size["width"] <= 1280 and 0 < size["height"] <= 800


def test_terminal_answers_as_osworlds_server(controller: PythonController) -> None:
    # No terminal is focused: OSWorld's server answers output null (SetupController probes it too).
    assert controller.get_terminal_output() is None


def test_wallpaper_is_the_desktops_image(controller: PythonController) -> None:
    shown = controller.run_bash_script(
        "xfconf-query -c xfce4-desktop -p \"$(xfconf-query -c xfce4-desktop -l | grep /last-image | head -n1)\"")
    assert shown["returncode"] == 0, shown
    assert controller.get_vm_wallpaper() == controller.get_file(shown["output"].strip())


def test_recording_comes_back_as_mp4(controller: PythonController, tmp_path: Path) -> None:
    controller.start_recording()
    controller.execute_python_command("pyautogui.moveTo(10, 10); pyautogui.moveTo(600, 300)")
    video = tmp_path / "episode.mp4"
    controller.end_recording(str(video))
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width",
                            "-of", "csv=p=0", str(video)], capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "h264,1280"


def test_every_get_route_answers_head(server: str) -> None:
    """OSWorld's remote provider waits for the VM with HEAD /screenshot (Flask answers HEAD on every
    GET route): the same status and type as GET, no body."""
    for route in ROUTES:
        if route.method != "GET":
            continue
        head = requests.head(f"{server}{route.path}", timeout=30)
        get = requests.get(f"{server}{route.path}", timeout=30)
        assert (head.status_code, head.content) == (200, b""), route.path
        assert head.headers["Content-Type"] == get.headers["Content-Type"], route.path
