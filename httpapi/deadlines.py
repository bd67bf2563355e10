"""Slow clients lose their connection: a client must finish sending a request's headers within
HEADER_DEADLINE_S of connecting (slow-header "slowloris" sockets would otherwise be held open
forever by aiohttp 3.8), and a request's body within BODY_DEADLINE_S (errors.read_json_object).

The header deadline wraps each connection's protocol: aiohttp's request handler keeps doing all
the work, this only watches for the blank line that ends the first request's headers. Later
requests on a kept-alive connection are covered by aiohttp's keep-alive timeout, which closes a
connection that sends nothing."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TypedDict

from .app_keys import app_key

log = logging.getLogger(__name__)

HEADER_DEADLINE_S = 10.0
BODY_DEADLINE_S = 30.0
KEEPALIVE_S = 15.0
# The app's body deadline (settings), read by errors.read_body.
BODY_DEADLINE = app_key("web.body_deadline", float)
END_OF_HEADERS = b"\r\n\r\n"


class HeaderDeadline(asyncio.Protocol):
    """Delegates to ``inner`` (aiohttp's RequestHandler); closes the connection if the first
    request's headers are not complete ``deadline_s`` after connecting."""

    def __init__(self, inner: asyncio.Protocol, deadline_s: float = HEADER_DEADLINE_S) -> None:
        self._inner = inner
        self._deadline_s = deadline_s
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)     # a TCP server's: it can abort
        self._transport = transport
        self._timer = asyncio.get_running_loop().call_later(self._deadline_s, self._expire)
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if END_OF_HEADERS in seen:
                self._disarm()
            else:
                self._tail = seen[-(len(END_OF_HEADERS) - 1):]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        self._timer = None
        if self._transport is not None and not self._transport.is_closing():
            peer = self._transport.get_extra_info("peername")
            log.warning("closed a connection from %s: no complete request headers within %.0f s", peer,
                        self._deadline_s)
            self._transport.abort()


def with_header_deadline(factory: Callable[[], asyncio.Protocol],
                         deadline_s: float = HEADER_DEADLINE_S) -> Callable[[], asyncio.Protocol]:
    return lambda: HeaderDeadline(factory(), deadline_s)


def add_deadline_arguments(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> None:
    """The two deadlines, alike in both daemons."""
    parser.add_argument("--header-deadline", type=float,
                        default=float(env.get("DESKTOPD_HEADER_DEADLINE") or HEADER_DEADLINE_S),
                        help="seconds a client has to send a request's headers after connecting "
                             f"(env DESKTOPD_HEADER_DEADLINE; default {HEADER_DEADLINE_S:g})")
    parser.add_argument("--body-deadline", type=float,
                        default=float(env.get("DESKTOPD_BODY_DEADLINE") or BODY_DEADLINE_S),
                        help="seconds a client has to send a request's body (408 after; env "
                             f"DESKTOPD_BODY_DEADLINE; default {BODY_DEADLINE_S:g})")


class DeadlineArguments(TypedDict):
    header_deadline: float
    body_deadline: float


def deadline_arguments(args: argparse.Namespace) -> DeadlineArguments:
    return {"header_deadline": args.header_deadline, "body_deadline": args.body_deadline}


def deadline_problem(header_deadline: float, body_deadline: float) -> str | None:
    if not (0 < header_deadline <= 3600 and 0 < body_deadline <= 3600):
        return "deadlines must be in (0, 3600] seconds"
    return None
