"""What desktopd and the sidecar share as daemons: the bind-safety rule, the env truthiness rule,
serving an app until SIGINT/SIGTERM, and the ``main`` that maps bad settings to exit code 2."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Protocol, TypeVar

from aiohttp import web
from aiohttp.web_log import AccessLogger

from .deadlines import HEADER_DEADLINE_S, KEEPALIVE_S, with_header_deadline
from .protocol_errors import with_json_protocol_errors


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a hostname may resolve anywhere: treat it as exposed


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def exposure_problem(host: str, token: str | None, insecure: bool, how_to_fix: str) -> str | None:
    """Why serving on ``host`` would expose an unauthenticated API, or None when it would not."""
    if is_loopback(host) or token or insecure:
        return None
    return f"refusing to listen on non-loopback address {host!r} without a token: {how_to_fix}"


def server_problem(host: str, port: int, token: str | None, insecure: bool, log_level: str,
                   how_to_fix_exposure: str) -> str | None:
    """What is wrong with a daemon's common settings (the bind-safety rule, the port, the log
    level), or None."""
    problem = exposure_problem(host, token, insecure, how_to_fix_exposure)
    if problem:
        return problem
    if not 0 <= port <= 65535:
        return f"port must be 0..65535, got {port}"
    if log_level not in LOG_LEVELS:
        return f"log level must be one of {', '.join(LOG_LEVELS)}"
    return None


# A query parameter that may carry the token (the sidecar's CDP paths, cdp_url_token.py): its
# value never reaches a log.
SECRET_QUERY_PARAMS = ("token",)
REDACTED = "REDACTED"


class ProbeQuietAccessLogger(AccessLogger):
    """The access log without successful ``GET /health`` lines: container health checks probe
    every few seconds and would bury everything else. Failed probes are still logged. A token
    given in the URL is logged as REDACTED."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        if request.path == "/health" and response.status < 400:
            return
        if any(name in request.query for name in SECRET_QUERY_PARAMS):
            query = request.rel_url.query.copy()
            for name in SECRET_QUERY_PARAMS:
                if name in query:
                    query[name] = REDACTED
            request = request.clone(rel_url=request.rel_url.with_query(query))
        super().log(request, response, time)


async def serve_until_signalled(app: web.Application, host: str, port: int,
                                announce: Callable[[str, int], None],
                                header_deadline: float = HEADER_DEADLINE_S) -> None:
    """Serve ``app`` until SIGINT/SIGTERM, then shut down gracefully (cleanup_ctx runs)."""
    runner = web.AppRunner(app, handle_signals=False, access_log_class=ProbeQuietAccessLogger,
                           keepalive_timeout=KEEPALIVE_S)
    await runner.setup()
    loop = asyncio.get_running_loop()
    server: asyncio.base_events.Server | None = None
    try:
        # aiohttp's own protocol factory, its parser errors in JSON (protocol_errors.py), each
        # connection watched for slow headers (deadlines.py).
        assert runner.server is not None        # made by setup()
        protocol = with_header_deadline(with_json_protocol_errors(runner.server), header_deadline)
        server = await loop.create_server(protocol, host, port)
        for sock in server.sockets:
            bound_host, bound_port, *_ = sock.getsockname()
            announce(bound_host, bound_port)  # the real port when asked for port 0
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        logging.getLogger(__name__).info("shutting down")
    finally:
        if server is not None:
            server.close()
            await server.wait_closed()
        await runner.cleanup()


class DaemonSettings(Protocol):
    """What daemon_main reads of a daemon's settings."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def log_level(self) -> str: ...


S = TypeVar("S", bound=DaemonSettings)


def daemon_main(name: str, parse: Callable[[], S], settings_error: type[Exception],
                serve: Callable[[S], Coroutine[object, object, None]]) -> int:
    """Parse settings (bad ones: a message and exit code 2), configure logging, run ``serve``."""
    try:
        settings = parse()
    except settings_error as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(settings))
    except OSError as exc:  # e.g. the port is taken
        logging.getLogger(name).error("cannot serve on %s:%s: %s", settings.host, settings.port, exc)
        return 1
    return 0
