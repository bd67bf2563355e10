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
