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


def token_auth_middleware(token: str | None, *, public_paths: Iterable[str] = ("/health",)):
    """Require ``Authorization: Bearer <token>`` on everything but ``public_paths``."""
    public = frozenset(public_paths)
    expected = token.encode() if token else None

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        if expected is None or request.path in public:
            return await handler(request)
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
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
