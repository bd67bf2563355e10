"""``python -m sidecar.mcp``: the MCP server over stdio, calling the sidecar and desktopd over HTTP.

    python -m sidecar.mcp --sidecar-url http://127.0.0.1:8122 --desktopd-url http://127.0.0.1:8080

The token comes from SIDECAR_TOKEN / SIDECAR_TOKEN_FILE or DESKTOPD_TOKEN / DESKTOPD_TOKEN_FILE
(one token serves both services, as in the images). Logs go to stderr: stdout is the protocol."""

from __future__ import annotations

import argparse
import logging
import os
import sys

import anyio

from httpapi.middlewares import read_token

from .backends import Backends
from .tools import build_server


def main(argv: list[str] | None = None) -> int:
    env = os.environ
    parser = argparse.ArgumentParser(prog="python -m sidecar.mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--sidecar-url", default=env.get("SIDECAR_URL") or "http://127.0.0.1:8122",
                        help="the sidecar (env SIDECAR_URL)")
    parser.add_argument("--desktopd-url", default=env.get("DESKTOPD_URL") or "http://127.0.0.1:8080",
                        help="desktopd, without /api/v1 (env DESKTOPD_URL)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    token = (read_token(env.get("SIDECAR_TOKEN"), env.get("SIDECAR_TOKEN_FILE"))
             or read_token(env.get("DESKTOPD_TOKEN"), env.get("DESKTOPD_TOKEN_FILE")))
    backends = Backends(args.sidecar_url, args.desktopd_url, token)
    server = build_server(backends)

    async def serve() -> None:
        try:
            await server.run_stdio_async()
        finally:
            await backends.close()

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
