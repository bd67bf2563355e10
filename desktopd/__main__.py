"""``python -m desktopd``: serve the API until SIGINT/SIGTERM, then shut down gracefully."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from aiohttp import web

from desktopd.app import init_app
from desktopd.settings import Settings, SettingsError, parse_settings

log = logging.getLogger("desktopd")


async def serve(settings: Settings) -> None:
    app = init_app(settings)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.host, settings.port)
        await site.start()
        for host, port, *_ in runner.addresses:
            # Printed whatever the log level: tests and scripts wait for this line (it has the
            # real port when --port 0).
            print(f"desktopd listening on http://{host}:{port} (display {settings.display}, "
                  f"token {'required' if settings.token else 'off'})", file=sys.stderr, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        log.info("shutting down")
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    try:
        settings = parse_settings(argv)
    except SettingsError as exc:
        print(f"desktopd: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(settings))
    except OSError as exc:  # e.g. the port is taken
        log.error("cannot serve on %s:%s: %s", settings.host, settings.port, exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
