"""The /setup/* endpoints in the shapes OSWorld's SetupController sends them (multipart through
requests_toolbelt's MultipartEncoder, JSON elsewhere). SetupController itself cannot be imported
without OSWorld's whole metric stack (easyocr, so torch): its requests are made here as it makes
them (docs/osworld.md)."""

from __future__ import annotations

import io
import json

import requests
from PIL import Image
from requests_toolbelt.multipart.encoder import MultipartEncoder

from desktopd_osworld import DesktopdProvider

JSON = {"Content-Type": "application/json"}


def post_json(server: str, path: str, body: dict) -> requests.Response:
    return requests.post(server + path, headers=JSON, data=json.dumps(body), timeout=60)


def test_upload_writes_the_file_where_asked(server: str) -> None:
    form = MultipartEncoder({"file_path": "/home/user/Desktop/new/notes.txt",
                             "file_data": ("notes.txt", b"hello\x00world")})
    answer = requests.post(server + "/setup/upload", headers={"Content-Type": form.content_type},
                           data=form, timeout=60)
    assert answer.status_code == 200 and answer.text == "File Uploaded: 11 bytes"
    back = requests.post(server + "/file", data={"file_path": "~/Desktop/new/notes.txt"}, timeout=30)
    assert back.content == b"hello\x00world"


def test_execute_shapes(server: str) -> None:
    argv = post_json(server, "/setup/execute", {"command": ["python", "-c", "print(6*7)"], "shell": False})
    assert argv.json() == {"status": "success", "output": "42\n", "error": "", "returncode": 0}
    shell = post_json(server, "/setup/execute", {"command": "echo $HOME >&2; exit 5", "shell": True})
    assert shell.json() == {"status": "success", "output": "", "error": "/home/desktop\n", "returncode": 5}
    missing = post_json(server, "/execute", {"command": ["no-such-program"], "shell": False})
    assert missing.json()["status"] == "error" and missing.json()["returncode"] is None


def test_launch_activate_and_close_a_window(provider: DesktopdProvider, server: str) -> None:
    launched = post_json(server, "/setup/launch", {"command": ["xfce4-terminal", "--title", "osworld-term"],
                                                   "shell": False})
    assert launched.status_code == 200 and launched.text.endswith("launched successfully")
    opened = post_json(server, "/setup/open_file", {"path": "xfce4-terminal", "window_name": "Terminal -",
                                                    "timeout_seconds": 60})
    assert opened.status_code == 200, opened.text
    desktop = provider.desktop()
    activated = post_json(server, "/setup/activate_window", {"window_name": "OSWORLD-TERM", "strict": False,
                                                             "by_class": False})
    assert activated.status_code == 200, activated.text
    focused = [w for w in desktop.tree()["windows"] if w["focused"]]
    assert [w["title"] for w in focused] == ["osworld-term"]
    closed = post_json(server, "/setup/close_window", {"window_name": "osworld-term", "strict": True,
                                                       "by_class": False})
    assert closed.status_code == 200
    assert post_json(server, "/setup/activate_window", {"window_name": "no such window"}).status_code == 404


def test_change_wallpaper_then_read_it_back(server: str) -> None:
    make = post_json(server, "/run_python", {"code": "from PIL import Image; Image.new('RGB', (64, 32), 'red')"
                                                     ".save('/home/user/Pictures/red.png')"})
    assert make.json()["status"] == "success", make.text
    changed = post_json(server, "/setup/change_wallpaper", {"path": "~/Pictures/red.png"})
    assert changed.status_code == 200, changed.text
    with open_png(requests.post(server + "/wallpaper", timeout=30).content) as image:
        assert image.size == (64, 32)


def open_png(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_browser_sent_requests_are_refused(server: str) -> None:
    """Forms are accepted here, so a page could post one: the browser's own headers refuse it."""
    page_form = requests.post(server + "/setup/execute", data={"command": "touch /tmp/pwned", "shell": "true"},
                              headers={"Origin": "http://evil.example"}, timeout=30)
    assert page_form.status_code == 403 and page_form.json()["field"] == "Origin"
    no_cors = requests.post(server + "/file", data={"file_path": "/etc/passwd"},
                            headers={"Sec-Fetch-Site": "cross-site"}, timeout=30)
    assert no_cors.status_code == 403
    text_body = requests.post(server + "/run_python", data="print(1)", headers={"Content-Type": "text/plain"},
                              timeout=30)
    assert text_body.status_code == 415
    rebinding = requests.get(server + "/screenshot", headers={"Host": "evil.example"}, timeout=30)
    assert rebinding.status_code == 421


def test_bad_input_names_the_field(server: str) -> None:
    answer = post_json(server, "/run_bash_script", {"script": "true", "timeout": "soon"})
    assert answer.status_code == 422 and answer.json()["field"] == "timeout"
    assert requests.post(server + "/file", data={}, timeout=30).json()["field"] == "file_path"
