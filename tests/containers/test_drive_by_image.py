"""The drive-by attack of tests/security/test_drive_by.py inside the Chromium image, as compose
runs it (no token): the container's own Chromium opens a hostile page (a data: URL, an opaque
origin) that tries every vector against desktopd and the sidecar on the container's loopback.
No command runs, no tab opens; the same command sent by a program does run. (Native, with a real
http origin, every vector reaches the daemons: tests/security/test_drive_by.py.)"""

from __future__ import annotations

import json
import time
import urllib.parse

from tests.security.test_drive_by import ATTACK_JS

from .support import logs_of, remove, start_desktop

INSIDE = "http://127.0.0.1"
MARKER = "/tmp/drive-by-marker"


def test_a_hostile_page_in_the_image_cannot_act(images: dict[str, str]) -> None:
    page = "<!doctype html><title>attack</title><body><script>%s</script>" % (ATTACK_JS % {
        "desktopd": json.dumps(f"{INSIDE}:8080"), "sidecar": json.dumps(f"{INSIDE}:8122"),
        "command": json.dumps(["touch", MARKER])})
    url = "data:text/html," + urllib.parse.quote(page)
    tc, desktop = start_desktop(images["chromium"], token=False, env={"SIDECAR_URLS": url}, ports=(8080, 8122))
    try:
        # The page's last act is a top-level form POST to desktopd: its tab then shows that URL.
        deadline = time.monotonic() + 90
        urls: list[str] = []
        while time.monotonic() < deadline:
            tabs = desktop.get(8122, "/tabs").json()
            urls = [tab["url"] for tab in tabs]
            if any(u.startswith(f"{INSIDE}:8080") for u in urls):
                break
            time.sleep(0.3)
        assert any(u.startswith(f"{INSIDE}:8080") for u in urls), (urls, desktop.logs())
        assert len(urls) == 1, urls
        code, _ = desktop.exec_in("test", "-e", MARKER)
        assert code != 0, "a web page ran a command through desktopd"
        logs = logs_of(desktop.container, 400)
        # Chromium itself stops most vectors of an opaque (data:) origin aimed at loopback; the
        # top-level form POST it lets through is refused by desktopd's guard.
        assert logs.count("refused POST /api/v1/execute") >= 1, logs[-3000:]
        # The same command from a program runs: the vectors were aimed right.
        assert desktop.execute(f"touch {MARKER}")["exit_code"] == 0
        code, _ = desktop.exec_in("test", "-e", MARKER)
        assert code == 0
    finally:
        remove(tc)
