"""Work ends with its client, and no client gets more than its share.

- A handler whose client hung up is cancelled: an /execute kills its process group (processes.run
  does that on cancellation), paced typing and drags stop before their next event. aiohttp >= 3.9
  can do this itself (``handler_cancellation``), bookworm's 3.8 cannot: the client's connection is
  watched here, the same way on both.
- Concurrency limits: at most ``total`` requests in handlers at once, and per route at most its own
  limit; beyond that a 429 with Retry-After at once, never a queue that grows without bound."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from aiohttp import web

from .errors import ApiError

log = logging.getLogger(__name__)

# How often a running handler looks whether its client is still there.
DISCONNECT_POLL_S = 0.1


def client_gone(request: web.BaseRequest) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def until_done_or_client_gone(request: web.Request, task: asyncio.Task) -> bool:
    """Waits for ``task``; True when it finished, False when the client left first."""
    while True:
        done, _ = await asyncio.wait({task}, timeout=DISCONNECT_POLL_S)
        if done:
            return True
        if client_gone(request):
            return False


def _route_key(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return f"{request.method} {resource.canonical if resource is not None else request.path}"


@dataclass
class Limits:
    """total: requests in handlers at once; per_route: "METHOD /path/{template}" -> its own cap."""
    total: int = 64
    per_route: Mapping[str, int] = field(default_factory=dict)
    busy: dict[str, int] = field(default_factory=dict)
    busy_total: int = 0

    def enter(self, key: str) -> None:
        cap = self.per_route.get(key)
        if self.busy_total >= self.total or (cap is not None and self.busy.get(key, 0) >= cap):
            which = f"{key} ({cap} at once)" if cap is not None and self.busy.get(key, 0) >= cap \
                else f"this service ({self.total} requests at once)"
            raise ApiError(429, "too_many_requests", f"too many requests in progress for {which}; retry",
                           headers={"Retry-After": "1"})
        self.busy_total += 1
        self.busy[key] = self.busy.get(key, 0) + 1

    def leave(self, key: str) -> None:
        self.busy_total -= 1
        self.busy[key] -= 1


def lifetime_middleware(limits: Limits, public_paths: tuple[str, ...] = ("/health",)):
    """Limits first (a refused request costs nothing), then the handler, cancelled if its client
    leaves. Probes on ``public_paths`` are never refused for load."""

    @web.middleware
    async def lifetime(request: web.Request, handler) -> web.StreamResponse:
        key = _route_key(request)
        counted = request.path not in public_paths
        if counted:
            limits.enter(key)
        try:
            task = asyncio.ensure_future(handler(request))
            try:
                finished = await until_done_or_client_gone(request, task)
            except asyncio.CancelledError:
                task.cancel()
                raise
            if finished:
                return task.result()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            log.info("client of %s left: its work was cancelled", key)
            # Nobody reads this; it keeps aiohttp from logging a handler without a response.
            return web.json_response({"error": "client_closed_request",
                                      "detail": "the client closed the connection"}, status=499)
        finally:
            if counted:
                limits.leave(key)

    return lifetime
