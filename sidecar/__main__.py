"""``python -m sidecar [URL ...]``: launch Chromium, serve the API until SIGINT/SIGTERM, then stop
both (Chromium first gets SIGTERM, then SIGKILL; if this process is killed outright, the kernel
kills Chromium through PR_SET_PDEATHSIG)."""

from __future__ import annotations

import logging
import sys

from httpapi.daemon import daemon_main, serve_until_signalled

from .server.app import init_app
from .settings import Settings, SettingsError, parse_settings

log = logging.getLogger("sidecar")


async def serve(settings: Settings) -> None:
    def announce(host: str, port: int) -> None:
        # Tests and scripts wait for this line (the real port when --port 0).
        log.info("sidecar listening on http://%s:%s (display %s%s, token %s)", host, port,
                 settings.display, ", headless" if settings.headless else "",
                 "required" if settings.token else "off")

    await serve_until_signalled(init_app(settings), settings.host, settings.port, announce,
                                settings.header_deadline)


def main(argv: list[str] | None = None) -> int:
    return daemon_main("sidecar", lambda: parse_settings(argv), SettingsError, serve)


if __name__ == "__main__":
    sys.exit(main())
