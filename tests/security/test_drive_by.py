"""A hostile page in a real Chromium tries every way a page has to make desktopd run a command and
the sidecar open a tab: a no-cors fetch, navigator.sendBeacon, a text/plain form in an iframe, a
urlencoded form in an iframe, a CORS fetch with a JSON body (needs a preflight) and a top-level
form POST. The daemons run without a token (compose's old default), the worst case. Each attempt
must be refused: the command's file never appears and no tab opens. A request sent by a program
(no browser headers) does run, so the vectors were aimed right."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from testbed.children import ROOT
from testbed.pages import free_port
from testbed.processes import terminate
from testbed.xvfb import start_xvfb

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

ATTACK_JS = """
const D = %(desktopd)s, S = %(sidecar)s, CMD = %(command)s;
const body = JSON.stringify({command: CMD});
const tab = JSON.stringify({url: "about:blank#opened-by-attacker"});
const done = [];
async function attempt(name, fn) {
  try { await fn(); done.push(name + ":sent"); } catch (e) { done.push(name + ":blocked"); }
}
function frameForm(target, enctype, field, value) {
  return new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.name = "f" + Math.random().toString(16).slice(2);
    frame.onload = () => resolve();
    document.body.appendChild(frame);
    const form = document.createElement("form");
    form.method = "POST"; form.action = target; form.enctype = enctype; form.target = frame.name;
    const input = document.createElement("input");
    input.name = field; input.value = value;
    form.appendChild(input); document.body.appendChild(form); form.submit();
  });
}
(async () => {
  await attempt("fetch-no-cors", () => fetch(D + "/api/v1/execute", {method: "POST", mode: "no-cors", body,
                                              headers: {"Content-Type": "text/plain"}}));
  await attempt("fetch-no-cors-tab", () => fetch(S + "/tabs", {method: "POST", mode: "no-cors", body: tab}));
  await attempt("beacon", () => { if (!navigator.sendBeacon(D + "/api/v1/execute", body)) throw 0; });
  await attempt("beacon-tab", () => { if (!navigator.sendBeacon(S + "/tabs", tab)) throw 0; });
  await attempt("cors-json", () => fetch(D + "/api/v1/execute", {method: "POST", body,
                                          headers: {"Content-Type": "application/json"}}));
  // text/plain forms send "name=value": a name ending in '{"x":"' makes the body valid JSON.
  await attempt("form-text-iframe", () => frameForm(D + "/api/v1/execute", "text/plain",
                 '{"command":' + JSON.stringify(CMD) + ',"x":"', '"}'));
  await attempt("form-urlencoded-iframe", () => frameForm(D + "/api/v1/execute",
                 "application/x-www-form-urlencoded", "command", CMD));
  await attempt("form-text-tab-iframe", () => frameForm(S + "/tabs", "text/plain", '{"url":"about:blank","x":"', '"}'));
  document.title = "attempted " + done.length;
  // Last, a top-level form POST (the page navigates away to the daemon's answer).
  const form = document.createElement("form");
  form.method = "POST"; form.action = D + "/api/v1/execute"; form.enctype = "text/plain";
  const input = document.createElement("input");
  input.name = '{"command":' + JSON.stringify(CMD) + ',"x":"'; input.value = '"}';
  form.appendChild(input); document.body.appendChild(form);
  setTimeout(() => form.submit(), 50);
})();
"""


class AttackSite:
    """The hostile site: another origin (its own port) serving the attack page."""

    def __init__(self, page: str) -> None:
        body = page.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.httpd.server_address[1]}/attack.html"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Daemon:
    """``python -m MODULE`` with its log in a file (the refusals are read from it)."""

    def __init__(self, module: str, args: list[str], log_path: Path, env: dict[str, str]) -> None:
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen([sys.executable, "-m", module, *args], cwd=str(ROOT), stdout=self.log,
                                        stderr=self.log, stdin=subprocess.DEVNULL, start_new_session=True,
                                        env={**os.environ, **env})

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def wait_for(self, pattern: str, count: int = 1, timeout: float = 60) -> list[str]:
        """Until the log holds ``count`` lines matching ``pattern`` (bounded)."""
        regex = re.compile(pattern)
        for _ in range(int(timeout / 0.1)):
            found = [line for line in self.text().splitlines() if regex.search(line)]
            if len(found) >= count or self.process.poll() is not None:
                return found
            await asyncio.sleep(0.1)
        return found

    def stop(self) -> None:
        terminate(self.process)
        self.log.close()


@pytest.fixture(params=["no token", "token"])
def stack(request, tmp_path: Path) -> Iterator[tuple[Daemon, Daemon, Path, str, str, dict[str, str]]]:
    """Both daemons on one Xvfb, without a token (compose's default) and with one (the page does
    not know it: the guard refuses before authentication either way)."""
    token = "t0k-" + os.urandom(8).hex() if request.param == "token" else None
    env = {"DESKTOPD_TOKEN": token} if token else {}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    xvfb = start_xvfb(1280, 800, log_path=str(tmp_path / "xvfb.log"))
    marker = tmp_path / "pwned"
    dport, sport = free_port(), free_port()
    desktopd_url, sidecar_url = f"http://127.0.0.1:{dport}", f"http://127.0.0.1:{sport}"
    page = "<!doctype html><title>attack</title><body><script>%s</script>" % (ATTACK_JS % {
        "desktopd": json.dumps(desktopd_url), "sidecar": json.dumps(sidecar_url),
        "command": json.dumps(["touch", str(marker)])})
    site = AttackSite(page)
    desktopd = Daemon("desktopd", ["--display", xvfb.display, "--port", str(dport)], tmp_path / "desktopd.log", env)
    sidecar = Daemon("sidecar", [site.url, "--display", xvfb.display, "--port", str(sport)], tmp_path / "sidecar.log",
                     env)
    try:
        yield desktopd, sidecar, marker, desktopd_url, sidecar_url, headers
    finally:
        sidecar.stop()
        desktopd.stop()
        site.stop()
        xvfb.stop()


async def test_a_hostile_page_can_neither_run_a_command_nor_open_a_tab(stack) -> None:
    desktopd, sidecar, marker, desktopd_url, sidecar_url, headers = stack
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10), headers=headers) as session:
        # The page's last act is a top-level form POST to desktopd: once its tab shows desktopd's
        # URL, every vector has been tried (they are awaited in order before it).
        urls = await _tab_urls_once(session, sidecar_url, lambda urls: any(u.startswith(desktopd_url) for u in urls))
        assert any(url.startswith(desktopd_url) for url in urls), (urls, sidecar.text()[-3000:])
        assert not marker.exists(), "a web page ran a command through desktopd"
        assert not any("opened-by-attacker" in url for url in urls), urls
        assert len(urls) == 1, urls

        refusals = await desktopd.wait_for(r"refused POST /api/v1/execute", count=5, timeout=10)
        sidecar_refusals = await sidecar.wait_for(r"refused POST /tabs", count=3, timeout=10)
        # no-cors fetch, beacon, the two iframe forms and the top-level form; the CORS fetch's
        # preflight (OPTIONS) never gets as far as a POST.
        assert len(refusals) == 5, desktopd.text()[-3000:]
        assert len(sidecar_refusals) == 3, sidecar.text()[-3000:]   # no-cors fetch, beacon, iframe form

        # The same command from a program (no browser headers) runs: the vectors were aimed right.
        async with session.post(desktopd_url + "/api/v1/execute",
                                json={"command": ["touch", str(marker)]}) as response:
            assert response.status == 200, await response.text()
    assert marker.exists()


async def _tab_urls_once(session: aiohttp.ClientSession, sidecar_url: str, done, timeout: float = 60) -> list[str]:
    """The tabs' URLs once ``done(urls)`` holds, or the last ones seen (bounded)."""
    urls: list[str] = []
    for _ in range(int(timeout / 0.2)):
        try:
            async with session.get(sidecar_url + "/tabs") as response:
                if response.status == 200:
                    tabs = await response.json()
                    urls = [tab["url"] for tab in tabs]
                    if done(urls):
                        return urls
        except aiohttp.ClientError:
            pass   # the sidecar is still starting
        await asyncio.sleep(0.2)
    return urls
