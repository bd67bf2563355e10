"""Error and auth middlewares: every failure leaves as ``{"error", "detail"}`` JSON."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

from .errors import ApiError, json_error, status_code_name

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as exc:
        return web.json_response(exc.body(), status=exc.status, headers=exc.headers)
    except web.HTTPException as exc:
        # aiohttp's own 404/405/413...: keep the status, give it our JSON shape.
        if exc.status < 400:
            raise
        headers = {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "retry-after")}
        return json_error(exc.status, status_code_name(exc.reason), exc.text or exc.reason,
                          headers=headers)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the last line of defence: log it, never leak a traceback
        log.exception("unhandled error in %s %s", request.method, request.path)
        return json_error(500, "internal_error", f"{type(exc).__name__}: {exc}")


# The token as a request presents it other than in the Authorization header, or None: for
# clients that cannot send a header on some paths (sidecar/browser/cdp_url_token.py).
OtherCredential = Callable[[web.Request], "str | None"]


def token_auth_middleware(token: str | None, *, public_paths: Iterable[str] = ("/health",),
                          other_credential: OtherCredential | None = None):
    """Require ``Authorization: Bearer <token>`` on everything but ``public_paths``;
    ``other_credential`` names where else a request may carry it."""
    public = frozenset(public_paths)
    expected = token.encode() if token else None

    def presented(request: web.Request) -> str | None:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            return given.strip()
        return other_credential(request) if other_credential is not None else None

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        if expected is None or request.path in public:
            return await handler(request)
        given = presented(request)
        if given is None or not hmac.compare_digest(given.encode(), expected):
            raise ApiError(401, "unauthorized", "missing or wrong bearer token",
                           headers={"WWW-Authenticate": 'Bearer realm="desktopd"'})
        return await handler(request)

    return auth


def read_token(env_value: str | None, file_path: str | None) -> str | None:
    """A secret from an env value, else from a file (Docker secrets style); None when neither."""
    if env_value:
        return env_value.strip() or None
    if file_path:
        with open(file_path, encoding="utf-8") as fh:
            return fh.read().strip() or None
    return None
