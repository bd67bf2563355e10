"""The browser guard both daemons put in front of every route: no web page may drive or read the
desktop, whatever page the agent's browser (or the user's) has open.

A hostile page can make a browser send requests to our loopback ports in three ways, each closed
here independently of the token:
- a cross-site request (form POST, no-cors fetch, sendBeacon, <img>): the browser marks it with
  ``Sec-Fetch-Site`` and/or ``Origin``; anything but same-origin (or a user-typed URL, ``none``)
  is refused with 403 unless its Origin is allow-listed;
- a body the page could send without a CORS preflight (``text/plain``, form encodings): bodies must
  be ``application/json``, which no page can send cross-origin without a preflight we never allow
  (415);
- DNS rebinding (a page's own host name re-pointed at 127.0.0.1, so its requests count as
  same-origin): the ``Host`` header must name the service as it is served: an IP literal,
  ``localhost``, or a configured name (421).
Clients that are not browsers (curl, requests, the harness kit) send none of these headers and
are unaffected."""

from __future__ import annotations

import argparse
import ipaddress
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypedDict
from urllib.parse import urlsplit

from aiohttp import web

from .errors import ApiError

log = logging.getLogger(__name__)

# Sec-Fetch-Site values a browser sends for the service's own pages and for what a person typed.
_TRUSTED_FETCH_SITES = frozenset({"same-origin", "none"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# What a page may send cross-origin without a CORS preflight (forms, sendBeacon, no-cors fetch).
_PAGE_MEDIA_TYPES = frozenset({"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"})


def split_list(value: str | None) -> tuple[str, ...]:
    """A comma- or space-separated setting as its items (empty ones dropped)."""
    return tuple(item for item in (value or "").replace(",", " ").split() if item)


@dataclass(frozen=True)
class GuardSettings:
    """allowed_hosts: extra Host names (no port); a leading dot allows every subdomain
    (".desktops.harness.svc.cluster.local"). allowed_origins: exact origins
    ("https://console.example.org") whose pages may call the API. public_paths skip the
    Origin check (never the Host check): probes and the OpenAPI document."""
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    # Routes whose body may also be another media type than JSON, by (method, path): only for
    # methods a page cannot send without a preflight (PUT), so the browser rule still holds.
    # The one exception, OSWorld's API (desktopd/osworld/, opt-in), takes forms on POST because
    # OSWorld's client sends them: there the Origin / Sec-Fetch-Site checks are what refuse pages.
    extra_media_types: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def host_allowed(self, host_header: str) -> bool:
        name = host_name(host_header)
        if not name:
            return False
        if name == "localhost" or name.endswith(".localhost") or _is_ip(name):
            return True
        for allowed in self.allowed_hosts:
            allowed = allowed.lower()
            if name == allowed or (allowed.startswith(".") and name.endswith(allowed)):
                return True
        return False


def host_name(host_header: str) -> str:
    """The name in a Host header, lower-cased, without port or IPv6 brackets."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _same_origin(origin: str, host_header: str) -> bool:
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host_header.strip().lower()


def check_request(request: web.BaseRequest, settings: GuardSettings) -> None:
    """Raises the ApiError that refuses ``request``, or returns when it may proceed."""
    host = request.headers.get("Host", "")
    if not settings.host_allowed(host):
        raise ApiError(421, "misdirected_request",
                       f"Host {host!r} is not a name this service is served under (a DNS-rebinding "
                       "page would send its own); add it to DESKTOPD_ALLOWED_HOSTS if it is yours",
                       field="Host")
    origin = request.headers.get("Origin")
    site = request.headers.get("Sec-Fetch-Site")
    if origin is not None and origin != "null" and origin in settings.allowed_origins:
        pass
    elif origin is not None and (origin == "null" or not _same_origin(origin, host)):
        raise ApiError(403, "cross_origin_refused",
                       f"requests from web pages of other origins are refused (Origin {origin!r}); "
                       "add the origin to DESKTOPD_ALLOWED_ORIGINS if it is yours", field="Origin")
    elif site is not None and site.lower() not in _TRUSTED_FETCH_SITES:
        raise ApiError(403, "cross_origin_refused",
                       f"requests a browser marks Sec-Fetch-Site: {site} are refused",
                       field="Sec-Fetch-Site")
    if request.method in _BODY_METHODS:
        accepted = {"application/json"} | settings.extra_media_types.get(
            (request.method, _route_path(request)), frozenset())
        declared = request.content_type if "Content-Type" in request.headers else None
        # A page's form may post with no fields at all: its media type alone gives it away.
        if (request.body_exists or declared in _PAGE_MEDIA_TYPES) and declared not in accepted:
            raise ApiError(415, "unsupported_media_type",
                           f"the body must be {' or '.join(sorted(accepted))}, got "
                           f"{request.headers.get('Content-Type') or 'no Content-Type'}",
                           field="Content-Type")


def _route_path(request: web.BaseRequest) -> str:
    """The route's template ("/api/v1/windows/{window_id}/focus") where one matched, else the path."""
    match_info = getattr(request, "match_info", None)
    route = getattr(match_info, "route", None)
    resource = getattr(route, "resource", None)
    return resource.canonical if resource is not None else request.path


def guard_middleware(settings: GuardSettings):
    @web.middleware
    async def guard(request: web.Request, handler) -> web.StreamResponse:
        try:
            check_request(request, settings)
        except ApiError as refusal:
            log.warning("refused %s %s (Host %r, Origin %r, Sec-Fetch-Site %r, Content-Type %r): %s",
                        request.method, request.path, request.headers.get("Host"),
                        request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"),
                        request.headers.get("Content-Type"), refusal.error)
            raise
        return await handler(request)

    return guard


def guard_settings(bind_host: str, allowed_hosts: Iterable[str], allowed_origins: Iterable[str],
                   extra_media_types: Mapping[tuple[str, str], frozenset[str]] | None = None) -> GuardSettings:
    """The guard for a daemon bound to ``bind_host``: a host name it is bound to counts as its
    own (an address is accepted anyway)."""
    hosts = tuple(allowed_hosts) + ((bind_host,) if bind_host and not _is_ip(host_name(bind_host)) else ())
    return GuardSettings(hosts, tuple(o.rstrip("/") for o in allowed_origins), dict(extra_media_types or {}))


def add_guard_arguments(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> None:
    """The two guard settings, alike in both daemons: flags (repeatable) plus the shared env."""
    parser.add_argument("--allowed-host", action="append", dest="allowed_hosts",
                        default=list(split_list(env.get("DESKTOPD_ALLOWED_HOSTS"))),
                        help="a Host name clients use for this service besides IP addresses and "
                             "localhost, e.g. desktop-0.desktops.harness.svc; a leading dot allows "
                             "subdomains (repeatable; env DESKTOPD_ALLOWED_HOSTS, comma-separated)")
    parser.add_argument("--allowed-origin", action="append", dest="allowed_origins",
                        default=list(split_list(env.get("DESKTOPD_ALLOWED_ORIGINS"))),
                        help="a web origin whose pages may call this API, e.g. "
                             "https://console.example.org (repeatable; env DESKTOPD_ALLOWED_ORIGINS)")


def guard_problem(allowed_hosts: Iterable[str], allowed_origins: Iterable[str]) -> str | None:
    """What is wrong with the guard's settings, or None."""
    for origin in allowed_origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/") or parts.query:
            return f"an allowed origin must look like https://host[:port], got {origin!r}"
    for host in allowed_hosts:
        if not host.strip(".") or "/" in host or ":" in host.strip("[]"):
            return f"an allowed host is a name without scheme or port, got {host!r}"
    return None


class GuardArguments(TypedDict):
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]


def guard_arguments(args: argparse.Namespace) -> GuardArguments:
    return {"allowed_hosts": tuple(args.allowed_hosts), "allowed_origins": tuple(args.allowed_origins)}
