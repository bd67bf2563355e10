"""``python -m desktopd``: serve the API until SIGINT/SIGTERM, then shut down gracefully."""

from __future__ import annotations

import sys

from desktopd.app import init_app
from desktopd.settings import Settings, SettingsError, parse_settings
from httpapi.daemon import daemon_main, serve_until_signalled


async def serve(settings: Settings) -> None:
    def announce(host: str, port: int) -> None:
        # Printed whatever the log level: tests and scripts wait for this line.
        print(f"desktopd listening on http://{host}:{port} ({settings.backend} display "
              f"{settings.backend_display}, "
              f"token {'required' if settings.token else 'off'})", file=sys.stderr, flush=True)

    await serve_until_signalled(init_app(settings), settings.host, settings.port, announce,
                                settings.header_deadline)


def main(argv: list[str] | None = None) -> int:
    return daemon_main("desktopd", lambda: parse_settings(argv), SettingsError, serve)


if __name__ == "__main__":
    sys.exit(main())
