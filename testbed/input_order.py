"""Type-then-click rounds on a real page, through each input path, for the input-order test and
benchmarks/stress_input_order.py.

A round: focus the Name field, type TEXT, click Submit. The page posts the field's value at the
click to this module's server (``/record``) and empties the field, so a round's record arrives
as evidence (no sleeps) and says what the page saw at the click. A round is wrong when that value
is not TEXT (keys that reach the page after the click land in the next round instead).

The paths (``DRIVERS``): desktopd's /tablet + /keyboard, the compatibility /tablet_event +
/keyboard_event, the Anthropic and OpenAI computer-use endpoints, the sidecar's /act in visible
mode, and the MCP desktop tools. Each drives the same real desktopd XTEST input."""

from __future__ import annotations

import asyncio
import http.server
import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

TEXT = "Ada Lovelace"
RECORD_TIMEOUT_S = 10.0

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>input order</title>
<style>body{margin:24px;font:16px sans-serif} input{width:320px}</style></head><body>
<input id="name" aria-label="Name"> <button id="submit">Submit</button>
<script>
  let round = 0, seen = [];
  // What reached the page since the last record: read when a round is wrong.
  for (const type of ["pointerdown", "click", "keydown", "focus"])
    addEventListener(type, (e) => seen.push(type + ":" + (e.key || e.target.id || e.target.nodeName)), true);
  // Chromium aborts requests when the host's network changes (a container starting nearby):
  // post again; the server drops a record it already has.
  const post = (record, tries) => fetch("/record", {method: "POST", body: JSON.stringify(record)})
    .catch(() => tries > 0 && setTimeout(() => post(record, tries - 1), 50));
  document.getElementById("submit").addEventListener("click", () => {
    const field = document.getElementById("name");
    const record = {round: round++, value: field.value, seen};
    field.value = "";
    seen = [];
    post(record, 20);
  });
</script></body></html>"""


class RecordServer:
    """Serves PAGE at / and queues what the page posts to /record; 127.0.0.1 only."""

    def __init__(self) -> None:
        records: queue.Queue[dict[str, Any]] = queue.Queue()
        self.records = records
        self._next_round = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                records.put(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def next_record(self) -> dict[str, Any] | None:
        """The page's next click record; None when none came within RECORD_TIMEOUT_S."""
        deadline = time.monotonic() + RECORD_TIMEOUT_S
        while True:
            try:
                record = self.records.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if record["round"] >= self._next_round:   # not a second post of one already read
                self._next_round = record["round"] + 1
                return record

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_window_manager(display: str) -> subprocess.Popen:
    """xfwm4 as in the desktop image (its click-to-focus grab is what reordered input); it needs
    a session bus. Its own process group: stop it with testbed.processes.terminate(group=True)."""
    return subprocess.Popen(["dbus-run-session", "--", "xfwm4", "--display", display,
                             "--compositor=off", "--replace"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True)


@dataclass
class Targets:
    """Where the field and the button are: screen centres (desktopd paths), refs (/act)."""
    field: tuple[int, int]
    submit: tuple[int, int]
    field_ref: str
    submit_ref: str


def _field_and_button(tree: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The snapshot nodes of the page's field and button, by role, once they have a screen box."""
    found: dict[str, dict[str, Any]] = {}
    stack = list(tree)
    while stack:
        node = stack.pop()
        if (node.get("role"), node.get("name")) in (("textbox", "Name"), ("button", "Submit")) \
                and node.get("screen"):
            found[node["role"]] = node
        stack.extend(node.get("children") or [])
    return found


def _centre(node: dict[str, Any]) -> tuple[int, int]:
    centre = node["screen"]["center"]
    return round(centre["x"]), round(centre["y"])


def find_targets(sidecar: str, timeout: float = 30.0) -> Targets:
    """The page's field and button from the sidecar's snapshot, once the page has them."""
    deadline = time.monotonic() + timeout
    while True:
        snapshot = requests.get(f"{sidecar}/snapshot", params={"format": "json"}, timeout=30).json()
        found = _field_and_button(snapshot.get("tree") or [])
        if len(found) == 2:
            field, button = found["textbox"], found["button"]
            return Targets(_centre(field), _centre(button), field["ref"], button["ref"])
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page's field and button did not show: {str(snapshot)[:500]}")
        time.sleep(0.1)   # bounded: until the page has loaded


# ---- the paths: each does one round's three acts, in order, each answered before the next --

Round = Callable[[], None]


def _ok(response: requests.Response, status: int = 200) -> None:
    if response.status_code != status:
        raise AssertionError(f"{response.request.method} {response.url}: {response.status_code} "
                             f"{response.text[:300]}")


def _keysym(char: str) -> str:
    return "space" if char == " " else char


def api_round(http: requests.Session, desktopd: str, t: Targets) -> Round:
    api = desktopd + "/api/v1"

    def round_() -> None:
        _ok(http.post(f"{api}/tablet", json={"action": "tap", "x": t.field[0], "y": t.field[1]}))
        _ok(http.post(f"{api}/keyboard", json={"text": TEXT}))
        _ok(http.post(f"{api}/tablet", json={"action": "tap", "x": t.submit[0], "y": t.submit[1]}))
    return round_


def compat_round(http: requests.Session, desktopd: str, t: Targets) -> Round:
    api = desktopd + "/api/v1"
    keys = [{"keysym": _keysym(c), "state": s} for c in TEXT for s in ("down", "up")]

    def click(at: tuple[int, int]) -> None:
        _ok(http.post(f"{api}/tablet_event", json={"events": [
            {"type": "click", "x": at[0], "y": at[1], "button": "left"}]}), 204)

    def round_() -> None:
        click(t.field)
        _ok(http.post(f"{api}/keyboard_event", json={"events": keys}), 204)
        click(t.submit)
    return round_


def anthropic_round(http: requests.Session, desktopd: str, t: Targets) -> Round:
    url = desktopd + "/api/v1/computer/anthropic?screenshot=false&settle=0"

    def round_() -> None:
        _ok(http.post(url, json={"action": "left_click", "coordinate": list(t.field)}))
        _ok(http.post(url, json={"action": "type", "text": TEXT}))
        _ok(http.post(url, json={"action": "left_click", "coordinate": list(t.submit)}))
    return round_


def openai_round(http: requests.Session, desktopd: str, t: Targets) -> Round:
    """One computer_call per action (each answers with a screenshot, as OpenAI's loop expects)."""
    url = desktopd + "/api/v1/computer/openai?settle=0"

    def round_() -> None:
        _ok(http.post(url, json={"action": {"type": "click", "button": "left",
                                            "x": t.field[0], "y": t.field[1]}}))
        _ok(http.post(url, json={"action": {"type": "type", "text": TEXT}}))
        _ok(http.post(url, json={"action": {"type": "click", "button": "left",
                                            "x": t.submit[0], "y": t.submit[1]}}))
    return round_


def act_round(http: requests.Session, sidecar: str, t: Targets) -> Round:
    """The sidecar's /act in visible mode: a type act into the field, then a click act."""
    def round_() -> None:
        _ok(http.post(f"{sidecar}/act", json={"kind": "type", "ref": t.field_ref, "text": TEXT,
                                              "mode": "visible"}))
        _ok(http.post(f"{sidecar}/act", json={"kind": "click", "ref": t.submit_ref,
                                              "mode": "visible"}))
    return round_


@dataclass
class Result:
    path: str
    rounds: int
    wrong: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def wrong_round(index: int, record: dict[str, Any] | None) -> dict[str, Any]:
    """What a wrong round saw: the value at the click (None: no click reached the page within
    RECORD_TIMEOUT_S) and the events the page got since the previous click."""
    if record is None:
        return {"round": index, "value": None}
    return {"round": index, "value": record["value"], "seen": record["seen"]}


def run_rounds(path: str, round_: Round, server: RecordServer, rounds: int) -> Result:
    """``rounds`` rounds; each waits for the page's record of its click."""
    result = Result(path, rounds)
    started = time.monotonic()
    for index in range(rounds):
        round_()
        record = server.next_record()
        if record is None or record["value"] != TEXT:
            result.wrong.append(wrong_round(index, record))
    result.seconds = time.monotonic() - started
    return result


async def run_mcp_rounds(sidecar: str, server: RecordServer, t: Targets, rounds: int) -> Result:
    """The MCP server's desktop tools (streamable HTTP at the sidecar's /mcp)."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    result = Result("mcp", rounds)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60)) as http:
        async with streamable_http_client(sidecar + "/mcp", http_client=http,
                                          terminate_on_close=False) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def call(tool: str, arguments: dict[str, Any]) -> None:
                    reply = await session.call_tool(tool, arguments)
                    if reply.isError:
                        raise AssertionError(f"{tool}: {reply.content}")
                started = time.monotonic()
                for index in range(rounds):
                    await call("desktop_click", {"x": t.field[0], "y": t.field[1]})
                    await call("desktop_type", {"text": TEXT})
                    await call("desktop_click", {"x": t.submit[0], "y": t.submit[1]})
                    record = await asyncio.to_thread(server.next_record)
                    if record is None or record["value"] != TEXT:
                        result.wrong.append(wrong_round(index, record))
                result.seconds = time.monotonic() - started
    return result


DESKTOPD_DRIVERS = {"api": api_round, "compat": compat_round, "anthropic": anthropic_round,
                    "openai": openai_round}
PATHS = (*DESKTOPD_DRIVERS, "act", "mcp")


def run_path(path: str, desktopd: str, sidecar: str, server: RecordServer, t: Targets,
             rounds: int) -> Result:
    if path == "mcp":
        return asyncio.run(run_mcp_rounds(sidecar, server, t, rounds))
    http = requests.Session()
    if path == "act":
        return run_rounds(path, act_round(http, sidecar, t), server, rounds)
    return run_rounds(path, DESKTOPD_DRIVERS[path](http, desktopd, t), server, rounds)

