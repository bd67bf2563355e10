"""Slow clients lose their connection, on a real desktopd process (deadlines shortened through
its settings): a socket that never finishes its request headers is closed, a request whose body
never arrives gets a JSON 408, and a prompt client on the same server is served meanwhile."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from testbed.desktopd import DesktopdProcess, start_desktopd
from testbed.polling import poll_until
from testbed.xvfb import start_xvfb

pytestmark = pytest.mark.x11


@pytest.fixture
def desktopd(tmp_path: Path) -> Iterator[DesktopdProcess]:
    xvfb = start_xvfb(640, 480, log_path=str(tmp_path / "xvfb.log"))
    server = start_desktopd(xvfb.display, "--header-deadline", "1", "--body-deadline", "1")
    try:
        yield server
    finally:
        server.stop()
        xvfb.stop()


def connect(server: DesktopdProcess) -> socket.socket:
    parts = urlsplit(server.url)
    return socket.create_connection((parts.hostname, parts.port), timeout=15)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by the socket timeout)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def read_response(sock: socket.socket) -> tuple[str, str]:
    """One HTTP response: its head and its body (by Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a whole response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(65536)
    return head.decode(), body.decode()


def test_a_client_that_never_finishes_its_headers_is_cut_off(desktopd) -> None:
    with connect(desktopd) as slow:
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        # A prompt client is served while the slow one hangs.
        assert requests.get(desktopd.url + "/health", timeout=10).status_code in (200, 503)
        # Closed without an answer (a socket timeout here would mean it was kept open).
        assert read_until_closed(slow) == b""
    # The server logs why after closing; its log reaches us through a reader thread, so wait for it.
    poll_until(lambda: any("no complete request headers" in line for line in desktopd.log),
               "desktopd's log line about the cut-off client", timeout=10)


def test_a_body_that_never_arrives_is_a_json_408(desktopd) -> None:
    host = urlsplit(desktopd.url).netloc
    with connect(desktopd) as slow:
        slow.sendall(f"POST /api/v1/keyboard HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: 100\r\n\r\n{{\"text\": ".encode())
        head, body = read_response(slow)
    assert head.startswith("HTTP/1.1 408"), head
    assert json.loads(body)["error"] == "request_timeout"
