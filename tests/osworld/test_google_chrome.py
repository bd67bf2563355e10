"""The browser as OSWorld's Chrome tasks set it up: `google-chrome --remote-debugging-port=1337`
and `socat tcp-listen:9222,fork tcp:localhost:1337` launched through /setup/launch, then
Playwright over CDP on the published 9222 (as SetupController's chrome_open_tabs does), the
sidecar serving the same browser, and Chrome's files read at OSWorld's profile path."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET

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
    """The browser's own Preferences are read at OSWorld's path: the file is there at once (an
    empty object a fresh profile is given) and holds the browser's settings once it wrote them,
    at its commit interval (10 s after it started, as Chrome on OSWorld's VM)."""
    launch(server, ["google-chrome", "--remote-debugging-port=1337"])
    path = "/home/user/.config/google-chrome/Default/Preferences"
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while True:
        answer = requests.post(server + "/file", data={"file_path": path}, timeout=30)
        if answer.status_code == 200 and "profile" in json.loads(answer.content):
            break
        assert time.monotonic() < deadline, (answer.status_code, answer.text[:500])
        time.sleep(0.5)


CP = "{https://accessibility.ubuntu.example.org/ns/component}"


def on_screen(server: str, role: str, name: str) -> tuple[int, int]:
    """The centre of a node of OSWorld's accessibility observation (as an agent reads it)."""
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while True:
        tree = ET.fromstring(requests.get(server + "/accessibility", timeout=60).json()["AT"])
        for node in tree.iter(role):
            if name in node.get("name", "") and node.get(f"{CP}screencoord"):
                x, y = (int(v) for v in node.get(f"{CP}screencoord").strip("()").split(","))
                w, h = (int(v) for v in node.get(f"{CP}size").strip("()").split(","))
                return x + w // 2, y + h // 2
        assert time.monotonic() < deadline, f"no {role} {name!r} in the accessibility tree"
        time.sleep(0.3)


def pyautogui(server: str, code: str) -> None:
    done = requests.post(server + "/execute", headers=JSON, timeout=60, data=json.dumps(
        {"command": ["python", "-c", f"import pyautogui; {code}"]}))
    assert done.json()["returncode"] == 0, done.text


def browser_pid(server: str) -> int | None:
    """The browser process's pid: OSWorld's `pkill chrome` finds it by that name."""
    found = requests.post(server + "/execute", headers=JSON, timeout=30,
                          data=json.dumps({"command": ["pgrep", "-o", "-x", "chrome"]})).json()
    return int(found["output"]) if found["returncode"] == 0 else None


def test_a_setting_made_in_the_ui_survives_osworlds_postconfig(provider: DesktopdProvider, server: str) -> None:
    """Do Not Track switched on through the settings page (found in OSWorld's accessibility
    observation, clicked with pyautogui), then the evaluator's postconfig `pkill chrome` and
    `google-chrome --remote-debugging-port=1337`: the browser restarted and its Preferences at
    OSWorld's profile path say so."""
    launch(server, ["google-chrome", "--remote-debugging-port=1337"])
    pyautogui(server, "pyautogui.hotkey('ctrl', 'l'); pyautogui.typewrite('chrome://settings/cookies'); "
                      "pyautogui.press('delete'); pyautogui.press('enter')")
    x, y = on_screen(server, "switch", "Do Not Track")
    pyautogui(server, f"pyautogui.click({x}, {y})")
    x, y = on_screen(server, "button", "Confirm")
    pyautogui(server, f"pyautogui.click({x}, {y})")
    before = browser_pid(server)
    launch(server, ["pkill", "chrome"])
    launch(server, ["google-chrome", "--remote-debugging-port=1337"])
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while browser_pid(server) in (None, before):   # stopped, and restarted by the sidecar
        assert time.monotonic() < deadline, "pkill chrome did not stop the browser"
        time.sleep(0.2)
    answer = requests.post(server + "/file", timeout=30,
                           data={"file_path": "/home/user/.config/google-chrome/Default/Preferences"})
    assert json.loads(answer.content).get("enable_do_not_track") is True


FONT_PAGE = "data:text/html,<p>text in the default font</p>"
# A task's setup as OSWorld's 3299584d writes it (jq on Preferences, then google-chrome and socat).
EDIT_PREFERENCES = ("cd /home/user/.config/google-chrome/Default && jq '. + {\"webkit\": {\"webprefs\": "
                    "{\"default_font_size\": 27}}}' Preferences > temp && mv temp Preferences")


def default_font_size(cdp: str) -> str | None:
    """A new page's body font size, read through CDP as OSWorld's getters connect (None: CDP does
    not answer)."""
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.connect_over_cdp(cdp, timeout=10_000)
        except Exception:   # noqa: BLE001 - Playwright's connect errors have no common class
            return None
        try:
            page = browser.contexts[0].new_page()
            page.goto(FONT_PAGE)
            size = page.evaluate("getComputedStyle(document.querySelector('p')).fontSize")
            page.close()
            return str(size)
        except Exception:   # noqa: BLE001 - the browser went away under us (restarted)
            return None


def test_preferences_a_tasks_setup_edits_after_a_reset_reach_the_browser(
        provider: DesktopdProvider, server: str) -> None:
    """DesktopEnv's revert (desktopd's reset) with an earlier task's forwards still open
    (9222 -> 1337 -> the browser): when it answers, CDP answers on 9222 and ~/.config/google-chrome
    holds the new browser's Preferences; the next task's setup edits them with jq and launches
    google-chrome, and the browser uses the edited setting."""
    for command in LAUNCH:
        launch(server, command)
    cdp = f"http://127.0.0.1:{provider.get_ip_address('').split(':')[2]}"
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while cdp_version(cdp) is None:
        assert time.monotonic() < deadline, "CDP did not answer on the published 9222"
        time.sleep(0.2)
    provider.revert_to_snapshot("", "")
    assert cdp_version(cdp) is not None, "CDP on 9222 did not lead to the new browser when the reset answered"
    edited = requests.post(server + "/setup/execute", headers=JSON, timeout=60,
                           data=json.dumps({"command": EDIT_PREFERENCES, "shell": True})).json()
    assert edited["returncode"] == 0, edited
    for command in LAUNCH:
        launch(server, command)
    deadline = time.monotonic() + CONNECT_BUDGET_S
    while (size := default_font_size(cdp)) != "27px":   # the launch is detached: the browser restarts
        assert time.monotonic() < deadline, f"the browser's default font size is {size}, not the edited 27px"
        time.sleep(0.5)
    preferences = requests.post(server + "/file", timeout=30,
                                data={"file_path": "/home/user/.config/google-chrome/Default/Preferences"})
    assert json.loads(preferences.content)["webkit"]["webprefs"]["default_font_size"] == 27
