"""A data-collection harness written against the ORIGINAL system (desktopd + chromium_with_api.py),
in its call shapes, unchanged: plain ``requests``, no token, /layout read as the original's
schema says and as its code behaved (bounds relative to the viewport when the server is set to
that space, states from CDP's ``properties`` list), input through the original's batch
endpoints. The tests point it at our native stack and at ``docker compose up``.

Only the set-up (loading the test page) uses our API: the original had no navigate call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import requests

TIMEOUT = 20
# A tall page that scrolls itself to y=1080 once loaded and records what it receives: clicks
# (buttons), double clicks, and a textarea's text. Everything it saw goes into its title.
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ready</title>
<style>body{margin:0;height:3400px;font:16px sans-serif} .b{position:absolute;left:60px}</style>
</head><body>
<button class="b" id="b0" style="top:100px">Zero</button>
<button class="b" id="b1" style="top:700px">One</button>
<button class="b" id="b2" style="top:1150px">Two</button>
<button class="b" id="b3" style="top:1330px">Three</button>
<button class="b" id="b4" style="top:1930px">Four</button>
<button class="b" id="dbl" style="top:1200px;left:300px">Twice</button>
<label class="b" style="top:1250px;left:300px"><input id="agree" type="checkbox" checked> Agree</label>
<textarea id="notes" aria-label="Notes" style="position:absolute;left:500px;top:1120px;width:600px;height:200px"></textarea>
<script>
  const seen = {clicks: [], doubles: 0};
  const show = () => { document.title = JSON.stringify(seen); };
  for (const b of document.querySelectorAll("button"))
    b.addEventListener("click", () => { seen.clicks.push(b.textContent); show(); });
  document.getElementById("dbl").addEventListener("dblclick", () => { seen.doubles++; show(); });
  addEventListener("load", () => { scrollTo(0, 1080); document.title = "loaded"; });
</script></body></html>"""
PAGE_URL = "data:text/html;charset=utf-8," + quote(PAGE)


@dataclass
class Report:
    chromium_pid: int = 0
    on_screen: list[str] = field(default_factory=list)      # buttons the harness picked
    clicked: list[str] = field(default_factory=list)        # what the page recorded
    checkbox_checked: str | None = None
    typed: str = ""
    doubles: int = 0


class OriginalHarness:
    def __init__(self, desktopd: str, sidecar: str) -> None:
        self.desktopd = desktopd.rstrip("/") + "/api/v1"
        self.sidecar = sidecar.rstrip("/")
        self.http = requests.Session()

    # -- the original's calls ----------------------------------------------------------------

    def layout(self) -> dict[str, Any]:
        response = self.http.get(f"{self.sidecar}/layout", timeout=TIMEOUT)
        response.raise_for_status()
        return response.json()

    def tablet_events(self, events: list[dict]) -> None:
        response = self.http.post(f"{self.desktopd}/tablet_event", json={"events": events}, timeout=TIMEOUT)
        assert response.status_code == 204, response.text

    def keyboard_events(self, events: list[dict]) -> None:
        response = self.http.post(f"{self.desktopd}/keyboard_event", json={"events": events}, timeout=60)
        assert response.status_code == 204, response.text

    def find_chromium_window(self) -> dict[str, int]:
        """The browser's rect in screen pixels from the desktop's window tree in Sway's get_tree
        shape, as the original's client found it: the first container of type "con" whose window
        is Chromium; the whole screen when there is none."""
        tree = self.http.get(f"{self.desktopd}/tree", timeout=TIMEOUT).json()
        stack = [tree]
        while stack:
            node = stack.pop(0)
            names = " ".join(str(part) for part in (node.get("app_id"), node.get("name"),
                                                     (node.get("window_properties") or {}).get("class")))
            if node.get("type") == "con" and "chromium" in names.lower():
                return node["rect"]
            stack += node.get("nodes", []) + node.get("floating_nodes", [])
        return tree["rect"]

    def title(self) -> str:
        tabs = self.http.get(f"{self.sidecar}/tabs", timeout=TIMEOUT).json()
        return tabs[0]["title"]

    # -- set-up (ours) -----------------------------------------------------------------------

    def load_page(self) -> None:
        tab = self.http.get(f"{self.sidecar}/tabs", timeout=TIMEOUT).json()[0]
        response = self.http.post(f"{self.sidecar}/tabs/{tab['id']}/navigate",
                                  json={"url": PAGE_URL}, timeout=TIMEOUT)
        assert response.status_code == 200, response.text
        self._wait_title(lambda title: title == "loaded")

    def _wait_title(self, done: Any, attempts: int = 100) -> str:
        title = ""
        for _ in range(attempts):                   # bounded
            title = self.title()
            if done(title):
                return title
            time.sleep(0.1)
        raise AssertionError(f"the page's title stayed {title!r}")

    # -- the harness's loop ------------------------------------------------------------------

    def run(self) -> Report:
        import json

        report = Report()
        health = self.http.get(f"{self.sidecar}/health", timeout=TIMEOUT).json()
        report.chromium_pid = health["chromium_pid"]
        self.load_page()
        layout = self.layout()
        tab = layout["tabs"][0]
        viewport = tab["layout"]["viewport"]["visualViewport"]
        width, height = viewport["width"], viewport["height"]
        nodes = tab["layout"]["nodes"]
        targets = {}
        for node in nodes:
            if "bounds" not in node:
                continue
            b = node["bounds"]
            on_screen = b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= width \
                and b["y"] + b["height"] <= height
            role, name = node["role"]["value"], node["name"]["value"]
            if role == "button" and on_screen and name != "Twice":
                report.on_screen.append(name)
                targets[name] = (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
            if role in ("button", "textarea", "textbox") and on_screen:
                targets.setdefault(name, (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2))
            if role == "checkbox":
                states = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
                report.checkbox_checked = states.get("checked")
        for name in report.on_screen:
            x, y = targets[name]
            self.tablet_events([{"type": "click", "x": x, "y": y, "button": "left"}])
        title = self._wait_title(lambda t: t.startswith("{") and
                                 len(json.loads(t)["clicks"]) >= len(report.on_screen))
        report.clicked = json.loads(title)["clicks"]
        # A double click, as the original's tablet_event sends it.
        x, y = targets["Twice"]
        self.tablet_events([{"type": "double_click", "x": x, "y": y, "button": "left"}])
        report.doubles = json.loads(self._wait_title(lambda t: '"doubles":1' in t))["doubles"]
        # 600 characters typed as 1,200 key events in one batch, into the textarea.
        x, y = targets["Notes"]
        self.tablet_events([{"type": "click", "x": x, "y": y, "button": "left"}])
        text = ("The quick brown fox jumps over the lazy dog 0123456789. " * 11)[:600]
        events = []
        for char in text:
            keysym = "space" if char == " " else "period" if char == "." else char
            events += [{"keysym": keysym, "state": "down"}, {"keysym": keysym, "state": "up"}]
        self.keyboard_events(events)
        for _ in range(100):                        # bounded
            notes = [n for n in self.layout()["tabs"][0]["layout"]["nodes"]
                     if n["name"]["value"] == "Notes" and n["role"]["value"] == "textbox"]
            report.typed = notes[0].get("value", {}).get("value", "") if notes else ""
            if report.typed == text:
                break
            time.sleep(0.1)
        return report


def expected_typed() -> str:
    return ("The quick brown fox jumps over the lazy dog 0123456789. " * 11)[:600]
