"""The browser as OSWorld's Chrome tasks set it up: `google-chrome --remote-debugging-port=1337`
and `socat tcp-listen:9222,fork tcp:localhost:1337` launched through /setup/launch, then
Playwright over CDP on the published 9222 (as SetupController's chrome_open_tabs does), the
sidecar serving the same browser, and Chrome's files read at OSWorld's profile path."""

from __future__ import annotations

import json
import time

import requests
from playwright.sync_api import sync_playwright

from desktopd_osworld import DesktopdProvider

JSON = {"Content-Type": "application/json"}
PAGE = "data:text/html,<title>OSWorld tab</title><h1>opened over CDP</h1>"
LAUNCH = [["google-chrome", "--remote-debugging-port=1337"],
          ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]]
CONNECT_BUDGET_S = 30.0


def launch(server: str, command: list[str]) -> None:
    answer = requests.post(server + "/setup/launch", headers=JSON,
                           data=json.dumps({"command": command, "shell": False}), timeout=30)
    assert answer.status_code == 200, answer.text


def cdp_version(url: str) -> dict | None:
    try:
        return requests.get(url + "/json/version", timeout=5).json()
    except (requests.RequestException, ValueError):
        return None


def test_tasks_reach_the_sidecars_browser_over_cdp(provider: DesktopdProvider, server: str) -> None:
    for command in LAUNCH:
        launch(server, command)
    cdp = f"http://127.0.0.1:{provider.get_ip_address('').split(':')[2]}"
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while cdp_version(cdp) is None:   # the launches are detached: wait for the forward to answer
        assert time.monotonic() < deadline, "CDP did not answer on the published 9222"
        time.sleep(0.2)
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(cdp)
        page = browser.contexts[0].new_page()
        page.goto(PAGE)
        assert page.title() == "OSWorld tab"
    sidecar = provider.desktop()
    titles = [tab["title"] for tab in sidecar.tabs()]
    assert "OSWorld tab" in titles, titles
    layout = sidecar.layout(interesting=True)
    assert any(tab["title"] == "OSWorld tab" for tab in layout["tabs"])


def test_chromes_files_are_at_osworlds_profile_path(provider: DesktopdProvider, server: str) -> None:
    launch(server, ["google-chrome", "--remote-debugging-port=1337"])
    path = "/home/user/.config/google-chrome/Default/Preferences"
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while True:
        answer = requests.post(server + "/file", data={"file_path": path}, timeout=30)
        if answer.status_code == 200:
            break
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)
    assert "profile" in json.loads(answer.content)


def wait_for_file(server: str, path: str, holds: str) -> bytes:
    """The file once it exists and contains ``holds`` (Chromium writes its files on its own time)."""
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while True:
        answer = requests.post(server + "/file", data={"file_path": path}, timeout=30)
        if answer.status_code == 200 and holds.encode() in answer.content:
            return answer.content
        assert time.monotonic() < deadline, f"{path} never held {holds!r}: {answer.status_code}"
        time.sleep(0.2)


def browser_pid(server: str) -> int | None:
    """The browser process's pid: OSWorld's `pkill chrome` finds it by that name."""
    found = requests.post(server + "/execute", headers=JSON, timeout=30,
                          data=json.dumps({"command": ["pgrep", "-o", "-x", "chrome"]})).json()
    return int(found["output"]) if found["returncode"] == 0 else None


def test_pkill_chrome_then_google_chrome_keeps_the_profile(provider: DesktopdProvider, server: str) -> None:
    """OSWorld's evaluator postconfig: `pkill chrome`, `google-chrome --remote-debugging-port=1337`,
    then the getters read Chrome's files: a bookmark made in the UI is there."""
    launch(server, ["google-chrome", "--remote-debugging-port=1337", "data:text/html,<title>Keep me</title>"])
    sidecar = provider.desktop()
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while not any(tab["title"] == "Keep me" and tab.get("visible") for tab in sidecar.tabs()):
        assert time.monotonic() < deadline, sidecar.tabs()
        time.sleep(0.2)
    done = requests.post(server + "/execute", headers=JSON, timeout=60, data=json.dumps({
        # Ctrl+D bookmarks the page at once (its bubble only offers to edit it).
        "command": ["python", "-c", "import pyautogui; pyautogui.click(640, 400); pyautogui.hotkey('ctrl', 'd')"]}))
    assert done.json()["returncode"] == 0, done.text
    before = browser_pid(server)
    launch(server, ["pkill", "chrome"])
    launch(server, ["google-chrome", "--remote-debugging-port=1337"])
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while browser_pid(server) in (None, before):   # stopped, and restarted by the sidecar
        assert time.monotonic() < deadline, "pkill chrome did not stop the browser"
        time.sleep(0.2)
    bookmarks = json.loads(wait_for_file(server, "/home/user/.config/google-chrome/Default/Bookmarks",
                                         "Keep me"))
    names = [node["name"] for root in bookmarks["roots"].values() if isinstance(root, dict)
             for node in root.get("children", [])]
    assert "Keep me" in names, names
