"""--start-pages: the start page over http on 127.0.0.1, a port of its own; Chromium opens it as
its start URL; only the directory's files, only GET (and HEAD)."""

from __future__ import annotations

import socket

import aiohttp
import pytest

from sidecar.settings import SettingsError, parse_settings
from testbed.capability import require_chromium

from .support import SidecarProcess

pytestmark = pytest.mark.chromium
PAGE = "<!doctype html><title>Served start</title><button>Click me</button>"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_the_start_page_is_served_over_http_and_opened(tmp_path) -> None:
    require_chromium()
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "start.html").write_text(PAGE)
    (tmp_path / "secret.txt").write_text("not served")
    port = free_port()
    start = f"http://127.0.0.1:{port}/start.html"
    sidecar = await SidecarProcess.start(["--headless", "--start-pages", str(pages),
                                          "--start-pages-port", str(port), start])
    try:
        await sidecar.wait_for_line("Chromium ready", 60)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
            async with http.get(start) as response:
                assert response.status == 200 and await response.text() == PAGE
            for path in ("/", "/../secret.txt", "/%2e%2e/secret.txt"):
                async with http.get(f"http://127.0.0.1:{port}{path}") as response:
                    assert response.status in (403, 404), path
            async with http.post(start, data=b"x") as response:
                assert response.status == 405
        status, tabs = await sidecar.get("/tabs")
        assert status == 200 and [tab["url"] for tab in tabs] == [start]
    finally:
        await sidecar.stop()


def test_a_start_pages_directory_that_is_not_one_is_refused(tmp_path) -> None:
    with pytest.raises(SettingsError, match="start pages"):
        parse_settings(["--headless", "--start-pages", str(tmp_path / "absent")], env={})


def test_the_start_pages_stay_openable_as_file_urls(tmp_path) -> None:
    """Before the images served them over http, clients opened them as file: URLs."""
    settings = parse_settings(["--headless", "--start-pages", str(tmp_path)], env={})
    assert settings.file_roots == (str(tmp_path),)
