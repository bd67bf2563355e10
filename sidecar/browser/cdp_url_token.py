"""How a CDP client that cannot send an ``Authorization`` header presents the token.

Puppeteer's ``browserURL`` fetches ``/json/version`` with no headers at all, chromedp's remote
allocator and browser-use's ``cdp_url`` take one URL and nothing else. So on the CDP paths only
(the discovery listings and the ``/devtools/...`` sockets, under ``/cdp`` and at the root) the
token may also come as the query parameter ``?token=TOKEN``; the listings then hand out socket
URLs carrying it, so the client connects with what discovery gave it. The access log writes the
parameter as REDACTED (httpapi/daemon.py). No other route takes a token in the URL.

Puppeteer's ``browserURL`` is the one line that cannot carry a token at all: it keeps only the
URL's host and port (``new URL('/json/version', browserURL)``), sends neither headers nor its
``headers`` option, and Node's fetch refuses a URL with credentials. With a token, Puppeteer
connects with ``browserWSEndpoint`` (docs/agent.md). Answering discovery without the token
instead would hand the token, or a socket usable without it, to every local user.

The browser guard (Host, Origin, Sec-Fetch-Site) applies to all of these first: no web page
reaches them.
"""

from __future__ import annotations

from aiohttp import web

TOKEN_PARAM = "token"
LISTING_PATHS = ("/json", "/json/list", "/json/version", "/json/protocol")
# Chromium's discovery paths as the proxy serves them: at the root and under the sidecar's /cdp.
CDP_PREFIXES = ("", "/cdp")
_DISCOVERY = frozenset(prefix + path + slash for prefix in CDP_PREFIXES for path in LISTING_PATHS
                       for slash in ("", "/"))


def is_cdp_path(path: str) -> bool:
    return path in _DISCOVERY or path.startswith(("/devtools/", "/cdp/devtools/"))


def url_token(request: web.Request) -> str | None:
    """The token given as ``?token=`` on a CDP path, else None (other routes never read it)."""
    if not is_cdp_path(request.path):
        return None
    return request.query.get(TOKEN_PARAM)

