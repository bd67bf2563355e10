"""Static test pages on 127.0.0.1 for the layout tests and the benchmarks: the files in
testbed/pages/, generated pages of N elements (/gen/N), and responses held back on purpose."""

from __future__ import annotations

import collections
import functools
import http.server
import re
import socket
import threading
from pathlib import Path
from typing import Any

PAGES = Path(__file__).parent / "pages"


class PageServer:
    """Static test pages on 127.0.0.1; main.html's CROSS_ORIGIN becomes http://localhost:<port>,
    a different site, so that iframe runs out of process. ``more``: directories of a suite's own
    pages, served beside testbed/pages (searched first)."""

    def __init__(self, *more: Path) -> None:
        handler = functools.partial(_PageHandler, directory=str(PAGES))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.directories = (*more, PAGES)   # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.httpd.cross_origin = f"http://localhost:{self.port}"   # type: ignore[attr-defined]
        # /held: a response held back until the test releases it (a page that stays loading).
        self.release = threading.Event()
        self.httpd.release = self.release   # type: ignore[attr-defined]
        # /gated/<name>.svg: a 120x60 image held back until gate(name) is set.
        self.gates: dict[str, threading.Event] = collections.defaultdict(threading.Event)
        self.httpd.gates = self.gates       # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def gate(self, name: str) -> threading.Event:
        return self.gates[name]

    def stop(self) -> None:
        self.release.set()
        for gate in list(self.gates.values()):
            gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class _PageHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/gen/"):
            return self._send(_generated(path), "text/html")
        if path == "/held":
            self.server.release.wait(30)   # type: ignore[attr-defined]
            return self._send("", "text/plain")
        if path.startswith("/gated/") and path.endswith(".svg"):
            self.server.gates[path[len("/gated/"):-4]].wait(30)   # type: ignore[attr-defined]
            return self._send('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
                              '<rect width="120" height="60" fill="teal"/></svg>', "image/svg+xml")
        target = Path(self.translate_path(path))
        if path.endswith(".html") and target.is_file():
            body = target.read_text().replace("CROSS_ORIGIN", self.server.cross_origin)  # type: ignore[attr-defined]
            return self._send(body, "text/html")
        super().do_GET()

    def translate_path(self, path: str) -> str:
        """The file in the first directory that has it (else where the last would have it)."""
        found = super().translate_path(path)
        relative = Path(found).relative_to(PAGES)
        for directory in self.server.directories:   # type: ignore[attr-defined]
            if (directory / relative).exists():
                return str(directory / relative)
        return found

    def _send(self, body: str, kind: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


def _generated(path: str) -> str:
    """/gen/<n>: a page of about n elements (buttons, links, inputs, text in nested sections)."""
    match = re.fullmatch(r"/gen/(\d+)", path)
    count = min(int(match.group(1)), 50_000) if match else 100
    return generated_page(count)


def generated_page(count: int) -> str:
    parts = ["<!doctype html><html><head><meta charset=utf-8><title>generated</title></head><body>"]
    made = 0
    section = 0
    while made < count:
        parts.append(f"<section><h2>Section {section}</h2><ul>")
        made += 3
        for i in range(10):
            if made >= count:
                break
            n = made
            kind = n % 4
            if kind == 0:
                parts.append(f'<li><button id="g{n}">Button {n}</button></li>')
            elif kind == 1:
                parts.append(f'<li><a href="#a{n}">Link {n}</a></li>')
            elif kind == 2:
                parts.append(f'<li><input aria-label="Field {n}" value="v{n}"></li>')
            else:
                parts.append(f"<li><span>Text {n}</span> <b>bold</b></li>")
            made += 2 if kind != 3 else 3
        parts.append("</ul></section>")
        section += 1
    parts.append("</body></html>")
    return "".join(parts)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
