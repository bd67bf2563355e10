"""Routes on the live browser beside its tabs: Python Playwright code run against it, the CDP
proxy (/cdp) and the MCP server; their handlers and their rows of the route table."""

from __future__ import annotations

from aiohttp import web

from httpapi.bodies import json_body
from httpapi.errors import ApiError
from httpapi.fields import F, Bool, ListOf, Model, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route

from ..agent.playwright_exec import clamp_timeout, playwright_installed, run_playwright
from ..browser import cdp_proxy
from ..browser.cdp_url_token import CDP_PREFIXES
from ..errors import ChromiumUnavailable
from ..mcp.http_mount import mcp_endpoint
from . import app_keys as keys
from ..request_models import PLAYWRIGHT_BODY
from .tab_lookup import find_tab, front_tab, live_session

# The token for clients that cannot send the Authorization header (cdp_url_token.py).
URL_TOKEN_QUERY = Model("CdpUrlToken", [
    F("token", Str(), description="The bearer token, for a client that cannot send the "
      "Authorization header (CDP paths only; written as REDACTED in the access log; the header, "
      "when sent, is what counts).")])


async def playwright(request: web.Request) -> web.Response:
    """Body: {"code", "timeout_s", "tab"}. 200 with the run's outcome, failed or not: a failure in
    the code is the caller's content, not an error of this service."""
    settings = request.app[keys.SETTINGS]
    if not settings.playwright:
        raise ApiError(403, "playwright_disabled",
                       "POST /playwright is switched off on this sidecar (SIDECAR_PLAYWRIGHT=0)")
    if not playwright_installed():
        raise ApiError(501, "playwright_not_installed",
                       "Playwright is not installed here: the image desktopd/chromium leaves it out, "
                       "desktopd/chromium-full has it (docs/images.md, \"Image sizes\")")
    body = await json_body(request, PLAYWRIGHT_BODY)
    _conn, tracker = live_session(request)
    page = find_tab(tracker, body["tab"])[0] if body["tab"] else await front_tab(request)
    ws_url = request.app[cdp_proxy.PROXY_ORIGIN]()
    if not ws_url:
        raise ChromiumUnavailable("Chromium is starting or restarting")
    return web.json_response(await run_playwright(body["code"], ws_url, page.target_id,
                                                  clamp_timeout(body["timeout_s"])))


PLAYWRIGHT_RESULT = ResponseModel("PlaywrightResult", [
    F("success", Bool(), required=True),
    F("result", Opaque(), required=True, description="The code's return value (JSON)."),
    F("stdout", Str(), required=True), F("stderr", Str(), required=True),
    F("error", Nullable(Str()), required=True,
      description="The exception with its traceback, a timeout, or null."),
    F("timed_out", Bool(), required=True), F("duration_s", Number()),
])
LISTING_TEXT = ("Chromium's DevTools listing with every webSocketDebuggerUrl pointing at "
                "/cdp/devtools/... on this port (the browser's at /cdp/devtools/browser/desktopd, "
                "whichever Chromium runs), each with `?token=` when the request gave one: "
                "`connect_over_cdp(\"http://HOST:8122/cdp\", headers={\"Authorization\": "
                "\"Bearer TOKEN\"})`. Served at the root too, where Puppeteer's browserURL looks.")
# /json and /json/list are arrays of targets; /json/version and /json/protocol objects.
CDP_ARRAY = ListOf(Opaque("object"))
CDP_OBJECT = Opaque("object")
CDP_ROUTES = [
    Route("GET", prefix + path + slash, cdp_proxy.listing,
          f"Chromium's DevTools {path}" if prefix + slash == "/cdp" else f"Same as /cdp{path}",
          returns=CDP_ARRAY if path in ("/json", "/json/list") else CDP_OBJECT,
          description=LISTING_TEXT,
          tag="cdp", extra_errors=(502,), query=URL_TOKEN_QUERY)
    for prefix in CDP_PREFIXES[::-1] for path in cdp_proxy.LISTINGS for slash in ("", "/")]
LIVE_BROWSER_ROUTES: list[Route] = CDP_ROUTES + [
    Route("GET", "/cdp/devtools/{kind}/{id}", cdp_proxy.devtools_socket,
          "A CDP WebSocket of the browser or a target, proxied to Chromium", "cdp",
          not_found=True, id_description="The socket's kind (browser, page, worker, iframe, "
          "shared_worker, service_worker), then the browser's or target's id.",
          id_pattern=r"^[A-Za-z0-9_-]{1,64}$", success_status=101, success={}, extra_errors=(400,),
          query=URL_TOKEN_QUERY,
          description="Upgrade: websocket. Messages are relayed both ways unchanged, except that a "
                      "Target.closeTarget or Page.close of the browser's last page is preceded by "
                      "a blank page (Chromium would quit). The browser socket reaches the browser "
                      "running now whatever its id. 400 without a WebSocket upgrade."),
    Route("POST", "/playwright", playwright, "Run Python Playwright code against the live browser",
          "playwright", body=PLAYWRIGHT_BODY.model, not_found=True, extra_errors=(403, 501),
          concurrency=4,   # each call is a child process with a Node driver
          returns=PLAYWRIGHT_RESULT,
          description="A child process connects Playwright to this browser over CDP with `page`, "
                      "`context` and `browser` bound, runs the code and is killed at the timeout. "
                      "The answer is 200 whether the code succeeded or not (`success`, `error`). "
                      "403 when switched off (SIDECAR_PLAYWRIGHT=0); 501 where Playwright is not "
                      "installed (the image desktopd/chromium; desktopd/chromium-full has it)."),
    Route("POST", "/mcp", mcp_endpoint, "The MCP server (streamable HTTP, stateless, JSON answers)",
          "mcp", uses_x=False, extra_errors=(400, 501),
          returns=Opaque("object"),
          description="JSON-RPC messages of the Model Context Protocol: initialize, tools/list, "
                      "tools/call. Its tools call this sidecar and desktopd (SIDECAR_DESKTOPD_URL). "
                      "Clients: the MCP SDKs' streamable HTTP transport with the Authorization "
                      "header. 501 without the `mcp` package."),
]
