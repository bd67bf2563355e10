"""Errors aiohttp answers by itself, before any middleware runs (a request line or a header
longer than its parser's limit, a request that is not HTTP): in the JSON shape of every other
error instead of aiohttp's plain text."""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from .errors import error_body, status_code_name


class JsonErrorRequestHandler(RequestHandler):
    """aiohttp's request handler with its one error page written as ``{"error", "detail"}``."""

    __slots__ = ()

    def handle_error(self, request, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        # aiohttp's own first: it logs, and refuses when part of a response was already sent.
        super().handle_error(request, status, exc, message)
        if status >= 500:
            body = error_body("internal_error", HTTPStatus(status).description)
        else:
            body = error_body(status_code_name(HTTPStatus(status).phrase), message or HTTPStatus(status).description)
        response = web.json_response(body, status=status)
        response.force_close()
        return response


def with_json_protocol_errors(factory: Callable[[], RequestHandler]) -> Callable[[], RequestHandler]:
    """``factory`` (an AppRunner's server) making handlers that answer parser errors in JSON.

    The runner builds aiohttp's handler itself and offers no hook for its class; the subclass adds
    no slot, so the handler it made takes the subclass as its class."""

    def make() -> RequestHandler:
        handler = factory()
        handler.__class__ = JsonErrorRequestHandler
        return handler

    return make
