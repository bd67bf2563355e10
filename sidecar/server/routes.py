"""HTTP routes: health, targets/tabs (list, open, close, activate, navigate, reload), layout,
Playwright code and the CDP proxy (/cdp) on the live browser, and the OpenAPI document generated
from the route table below."""

from __future__ import annotations

import asyncio
import json
import time
from typing import TypeVar

from aiohttp import web

from httpapi.bounded import within
from httpapi.errors import ApiError
from httpapi.fields import F, ListOf, Str
from httpapi.openapi import build_openapi
from httpapi.responses import ResponseModel
from httpapi.routing import ErrorOptions, Route, register, with_body

from .. import __version__
from . import app_keys as keys
from .agent_routes import AGENT_ROUTES
from .live_browser_routes import LIVE_BROWSER_ROUTES
from .tab_lookup import cdp_timeout as _timeout
from .tab_lookup import find_tab as _find_tab
from .tab_lookup import live_session as _session
from .tab_lookup import tab_health as _tab_health
from .tab_lookup import tab_json
from .tab_lookup import shown_in_window as _visible
from ..cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from ..cdp.targets import PageTarget, TargetEntry
from ..errors import ChromiumUnavailable, as_api_error
from ..layout import LayoutOptions
from ..layout.output.encoding import GZIP_MIN_BYTES, accepts_gzip, etag_matches, options_key
from ..request_models import (LAYOUT_QUERY, NAVIGATE_BODY, OPEN_TAB_BODY, RELOAD_BODY,
                     RESET_BODY, NavigateBody, OpenTabBody, ReloadBody, ResetBody)
from ..browser.url_policy import UrlPolicy, UrlRefused
from .state_routes import STATE_ROUTES
from .settle_evidence import SETTLE_BODY, SETTLE_RESULT, settle_evidence

# Resolves in the committed document once its load event fired (at once if it already did).
_WAIT_FOR_LOAD = ("document.readyState === 'complete' || new Promise(resolve => "
                  "addEventListener('load', () => resolve(true), {once: true}))")


# -- health and listings --------------------------------------------------------------------------

async def health(request: web.Request) -> web.Response:
    """200 when Chromium is connected with at least one tab; 503 (same body) otherwise."""
    body = await request.app[keys.SUPERVISOR].health()
    body["chromium_pid"] = body["pid"]   # the original's name for it
    reads = request.app[keys.LAYOUT_READS]
    body["layout_reads"] = {"started": reads.started, "joined": reads.joined}
    return web.json_response(body, status=200 if body["status"] == "ok" else 503)


async def list_targets(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    # A JSON array, as the original's /targets (CDP's /json list); our fields beside CDP's.
    return web.json_response(_with_debugger_urls(request, tracker.targets()))


Listed = TypeVar("Listed", bound=TargetEntry)    # a target or a tab, as listed


def _with_debugger_urls(request: web.Request, targets: list[Listed]) -> list[Listed]:
    """With CDP exposed, each target's socket through the proxy as ``webSocketDebuggerUrl`` (the
    name of CDP's /json list): /targets and /tabs alike, the one list of targets the original
    documented them as."""
    socket_base = _exposed_cdp_base(request)
    if socket_base is not None:
        for target in targets:
            target["webSocketDebuggerUrl"] = f"{socket_base}/devtools/page/{target['id']}"
    return targets


def _exposed_cdp_base(request: web.Request) -> str | None:
    """ws://HOST:PORT of the exposed DevTools endpoint (cdp_proxy.py) as this client can reach
    it, or None when CDP is not exposed."""
    exposed = request.app[keys.SETTINGS].expose_cdp
    if exposed is None:
        return None
    host, port = exposed
    if host in ("0.0.0.0", "::", ""):          # every address: the one this client used
        host = request.url.host or "127.0.0.1"
    return f"ws://{'[' + host + ']' if ':' in host else host}:{port}"


async def list_tabs(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    pages = tracker.pages()
    health = _tab_health(request)
    visible = await asyncio.gather(*(_visible(tracker, p, health) for p in pages))
    # A JSON array in tab order, as the original documented it.
    return web.json_response(_with_debugger_urls(
        request, [tab_json(p, i, v, health) for i, (p, v) in enumerate(zip(pages, visible))]))


async def get_tab(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    health = _tab_health(request)
    return web.json_response(_with_debugger_urls(
        request, [tab_json(page, index, await _visible(tracker, page, health), health)])[0])


# -- tab actions --------------------------------------------------------------------------------

def _allowed_url(request: web.Request, url: str) -> str:
    """``url`` when the API may open it (url_policy.py), else a 403 naming the field."""
    url = url.strip()
    try:
        UrlPolicy(request.app[keys.SETTINGS].file_roots).check(url)
    except UrlRefused as refused:
        raise ApiError(403, "url_refused", str(refused), field="url") from None
    return url


async def open_tab(request: web.Request, body: OpenTabBody) -> web.Response:
    """Body (optional): {"url": "https://...", "background": false}. 201 with the new tab."""
    url = _allowed_url(request, body["url"])
    background = body["background"]
    _conn, tracker = _session(request)
    try:
        page = await tracker.open_tab(url, background=background, timeout=_timeout(request))
    except CDPError:
        if not tracker.pages():
            # Its last window was closed (a person's Ctrl+W): Chromium is quitting and is
            # restarted by the supervisor; not a fault of this request.
            raise ChromiumUnavailable("Chromium has no window open (its last one was closed) "
                                      "and is restarting") from None
        raise
    return web.json_response(tab_json(page, tracker.pages().index(page)), status=201)


async def close_tab(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    page, _index = _find_tab(tracker, request.match_info["tab_id"])
    if not await tracker.close(page, _timeout(request)):
        raise ApiError(409, "not_closed", f"Chromium refused to close tab {page.target_id}")
    return web.json_response({"closed": page.target_id})


async def activate_tab(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    await tracker.activate(page)
    return web.json_response(tab_json(page, index, await _visible(tracker, page, _tab_health(request))))


def _wait_options(request: web.Request, body: NavigateBody | ReloadBody) -> tuple[str, float]:
    timeout = body["timeout"] if body["timeout"] is not None else _timeout(request)
    return body["wait"], float(timeout)


async def _wait_for_load(page: PageTarget, url: str, timeout: float) -> None:
    try:
        await page.send("Runtime.evaluate", {"expression": _WAIT_FOR_LOAD, "awaitPromise": True,
                                             "returnByValue": True}, timeout=timeout)
    except CDPTimeout:
        raise ApiError(504, "load_timeout", f"{url} did not finish loading within {timeout} s") from None


async def navigate_tab(request: web.Request, body: NavigateBody) -> web.Response:
    """Body: {"url": "...", "wait": "load" | "none", "timeout": seconds}. Returns the tab."""
    url = _allowed_url(request, body["url"])
    wait, timeout = _wait_options(request, body)
    _conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    result = await tracker.navigate(page, url, timeout)
    if result.get("errorText"):
        raise ApiError(502, "navigation_failed", {"url": url, "error": result["errorText"]})
    # A same-document navigation (#fragment, history API) has no loaderId and nothing to wait for.
    if wait == "load" and result.get("loaderId"):
        await _wait_for_load(page, url, timeout)
    await tracker.refresh(page.target_id)
    if tracker.find_page(page.target_id) is None:
        raise CDPSessionClosed("the tab closed while navigating")
    await tracker.confirm_revived(page)
    return web.json_response(tab_json(page, index))


async def reload_tab(request: web.Request, body: ReloadBody) -> web.Response:
    """Body (optional): {"wait": "load" | "none", "timeout": seconds}. Loads the tab's URL
    again as a new document (so a tab whose renderer crashed gets a new renderer, which
    Page.reload cannot give). Returns the tab."""
    wait, timeout = _wait_options(request, body)
    _conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    result = await tracker.revive(page, timeout)
    if result.get("errorText"):
        raise ApiError(502, "navigation_failed", {"url": page.url, "error": result["errorText"]})
    if wait == "load" and result.get("loaderId"):
        await _wait_for_load(page, page.url, timeout)
    await tracker.refresh(page.target_id)
    if tracker.find_page(page.target_id) is None:
        raise CDPSessionClosed("the tab closed while reloading")
    await tracker.confirm_revived(page)
    return web.json_response(tab_json(page, index))


RESET_TIMEOUT_S = 60.0


_LOCATION_AND_STATE = "[location.href, document.readyState]"
LOAD_POLL_S = 0.02


async def _wait_for_document(page: PageTarget, url: str, deadline: float) -> None:
    """Until the tab shows its start URL's document (not the initial about:blank one, which is
    "complete" at once) and that document has loaded. Polled: the context being asked may be
    replaced by the navigation at any moment. Bounded by ``deadline`` (monotonic)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ApiError(504, "reset_timeout", f"{url} did not finish loading in time")
        try:
            reply = await page.send("Runtime.evaluate", {"expression": _LOCATION_AND_STATE,
                                                         "returnByValue": True},
                                    timeout=min(remaining, 5.0))
            href, state = reply.get("result", {}).get("value") or ("", "")
            if (href != "about:blank" or url == "about:blank") and state == "complete":
                return
        except CDPSessionClosed:
            raise
        except CDPError:
            pass                      # the document is being replaced: ask the next one
        await asyncio.sleep(LOAD_POLL_S)


# Resolves once the page's first paint was presented (Chromium reports paint timing entries only
# when the frame's presentation comes back: the pixels are on their way to the X server, not
# only in the DOM), and at least two frames ran. A page that paints nothing but the default
# background gets no paint entry: PAINT_WAIT_MS bounds the wait for it.
PAINT_WAIT_MS = 500
_PRESENTED = """new Promise(done => {
  const frames = new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)));
  const painted = new Promise(ok => {
    if (performance.getEntriesByType("paint").length) return ok(true);
    new PerformanceObserver((_list, observer) => { observer.disconnect(); ok(true); })
      .observe({type: "paint", buffered: true});
    setTimeout(() => ok(false), %d);
  });
  Promise.all([frames, painted]).then(([, seen]) => done(seen));
})""" % PAINT_WAIT_MS


async def _drawn(page: PageTarget, url: str, deadline: float) -> None:
    """Until the front tab's document is on the screen (bounded by ``deadline``, monotonic)."""
    if url == "about:blank":
        return                    # nothing to paint, nothing to wait for
    remaining = deadline - time.monotonic()
    try:
        await page.send("Runtime.evaluate", {"expression": _PRESENTED, "awaitPromise": True,
                                             "returnByValue": True}, timeout=max(0.1, min(remaining, 5.0)))
    except CDPError:
        pass                      # a page that navigated on or never draws: its load is what we have


async def reset(request: web.Request, body: ResetBody) -> web.Response:
    """Body (optional): {"urls": [...], "timeout": seconds, "profile": name, "isolation": ...}.
    A fresh episode on those tabs (a new browser context, or a new Chromium); answers once each
    has loaded, with the tabs, how the episode was made and seconds per part."""
    settings = request.app[keys.SETTINGS]
    urls = body["urls"] if body["urls"] is not None else list(settings.urls)
    for i, url in enumerate(urls):
        try:
            UrlPolicy(settings.file_roots).check(url.strip())
        except UrlRefused as refused:
            raise ApiError(403, "url_refused", str(refused), field=f"urls[{i}]") from None
    timeout = body["timeout"] or RESET_TIMEOUT_S
    supervisor = request.app[keys.SUPERVISOR]
    started = time.monotonic()
    outcome = await supervisor.reset(tuple(url.strip() for url in urls), body["profile"],
                                     body["isolation"] or settings.reset_isolation)
    timings = dict(outcome.timings)
    try:
        await supervisor.wait_until("ok", timeout)
        tracker = supervisor.current().tracker
        await tracker.wait_for(lambda: len(tracker.pages()) >= max(1, len(urls)), timeout)
    except (TimeoutError, CDPTimeout) as exc:
        raise ApiError(504, "reset_timeout", f"the new Chromium was not ready in time: {exc}") from None
    restarted = time.monotonic()
    if outcome.how == "process":
        timings["launch"] = round(restarted - started - timings.get("stop", 0.0), 4)
    pages = outcome.pages if outcome.pages is not None else tracker.pages()
    wanted = list(urls) + ["about:blank"] * (len(pages) - len(urls))
    try:
        await asyncio.gather(*(_wait_for_document(page, url, started + timeout)
                               for page, url in zip(pages, wanted)))
        if pages:
            await _drawn(pages[0], wanted[0], started + timeout)
    finally:
        if outcome.closing is not None:
            await outcome.closing        # its outcome.timings part, or its error
    timings.update(outcome.timings)
    await asyncio.gather(*(tracker.refresh(page.target_id) for page in pages))
    await tracker.refresh_titles()   # background tabs' titles are not pushed by Chromium
    timings["load"] = round(time.monotonic() - restarted, 4)
    return web.json_response({"tabs": [tab_json(page, i) for i, page in enumerate(tracker.pages())],
                              "pid": supervisor.health_snapshot()["pid"],
                              "profile": body["profile"],
                              "isolation": outcome.how,
                              "timings": timings,
                              "restart_s": restarted - started,
                              "duration_s": time.monotonic() - started})


# -- layout ----------------------------------------------------------------------------------

async def layout(request: web.Request) -> web.Response:
    """Delegates to the connection's sidecar.layout service; the whole request is time-bounded.

    The body is reused while the tabs' layouts are unchanged (see sidecar.layout.output.encoding); it
    carries an ETag (If-None-Match -> 304) and is gzipped when the client accepts gzip."""
    settings = request.app[keys.SETTINGS]
    options = LayoutOptions.from_query(request.query, settings.bounds_space, settings.tab_order)
    budget = 3 * _timeout(request)
    started = time.perf_counter()
    try:
        live = request.app[keys.SUPERVISOR].current()
        service = live.layout
        # The same question about the same browser: one read answers every request waiting.
        key = (id(service), options.tab, options.fresh, options.order, options_key(options))
        body = await within(request.app[keys.LAYOUT_READS].read(
            key, lambda: service.build(options, live.tab_health)), budget)
    except asyncio.TimeoutError:
        raise ApiError(504, "layout_timeout", f"the layout took longer than {budget:.0f} s") from None
    except (ChromiumUnavailable, CDPDisconnected) as exc:
        # The reference schema requires "tabs" even then: {"error": ..., "tabs": []}.
        raise as_api_error(exc, extra={"tabs": []}) from None
    built = time.perf_counter()
    encoded = service.encode(body, options)
    # no-cache: a client may keep the body but must revalidate (cheaply, with If-None-Match).
    # Server-Timing: where the request's time went (browsers' dev tools and curl -v show it).
    headers = {"ETag": encoded.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding",
               "Server-Timing": f"layout;dur={(built - started) * 1000:.1f}, "
                                f"encode;dur={(time.perf_counter() - built) * 1000:.1f}"}
    if etag_matches(request.headers.get("If-None-Match"), encoded.etag):
        return web.Response(status=304, headers=headers)
    data = encoded.data
    if len(data) >= GZIP_MIN_BYTES and accepts_gzip(request.headers.get("Accept-Encoding")):
        data = await asyncio.get_running_loop().run_in_executor(None, service.encoder.gzipped, encoded)
        headers["Content-Encoding"] = "gzip"
    return web.Response(body=data, headers=headers, content_type="application/json", charset="utf-8")


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(text=OPENAPI_BODY, content_type="application/json")


TARGET = ResponseModel("Target", [
    F("id", Str(), required=True), F("type", Str(), required=True), F("title", Str(), required=True),
    F("url", Str(), required=True),
    F("webSocketDebuggerUrl", Str(), description="Only with --expose-cdp: the target's CDP WebSocket "
      "through the token-checked proxy (in /targets, /tabs and /tabs/{id})."),
])
TAB_ID = "CDP target id of a tab, or a unique prefix of one (from GET /tabs)."
ERROR_TEXT = {
    400: "Malformed JSON or not a JSON object; a request line or header over 8,190 bytes",
    401: "Missing or wrong bearer token",
    403: "The URL is not opened through the API (see SIDECAR_FILE_ROOTS); `field` is url. Or an "
         "evaluate act while SIDECAR_AGENT_EVALUATE=0",
    404: "No such tab (or a ref that was never given), or no such profile",
    408: "The request body did not arrive in time, or an act's wait condition was not met in time",
    409: "A named profile in use by another browser; a HAR start or stop that does not fit the "
         "running capture. "
         "The tab closed, navigated away or crashed during the request; or, for agent routes, a "
         "stale ref (take a new snapshot), a modal state waiting for an answer, or an element "
         "that cannot be acted on",
    413: "The request body is over 1 MiB",
    422: "A field or parameter is invalid; `field` names it",
    500: "Unexpected error (a bug)",
    501: "Not installed in this environment (the `agent` extra)",
    502: "Chromium refused the call, or the navigation failed",
    503: "Chromium is starting or restarting, or the tab does not answer",
    504: "Chromium or the page did not answer in time",
}
TAB_ID_PATTERN = r"^[0-9A-Fa-f]{1,32}$"
_TAB: ErrorOptions = dict(not_found=True, id_description=TAB_ID, id_pattern=TAB_ID_PATTERN, extra_errors=(409, 502, 504))
ROUTES: list[Route] = [
    Route("GET", "/health", health, "Chromium, CDP and tab state (no token needed)", "meta", public=True,
          description="200 when Chromium is connected with at least one tab and none is crashed; "
                      "503 (same body) otherwise."),
    Route("GET", "/openapi.json", openapi_json, "This document", "meta", uses_x=False),
    Route("GET", "/targets", list_targets, "Every CDP target (tabs, iframes, workers): a JSON array",
          "tabs", returns=ListOf(TARGET)),
    Route("GET", "/tabs", list_tabs, "Tabs in tab order: a JSON array", "tabs", returns=ListOf(TARGET)),
    Route("POST", "/tabs", with_body(OPEN_TAB_BODY, open_tab, optional=True), "Open a tab", "tabs",
          success_status=201, extra_errors=(403, 502, 504)),
    Route("GET", "/tabs/{tab_id}", get_tab, "One tab", "tabs", **_TAB),
    Route("DELETE", "/tabs/{tab_id}", close_tab, "Close a tab (the last one gets an about:blank neighbour first, so Chromium keeps running)", "tabs", **_TAB),
    Route("POST", "/tabs/{tab_id}/activate", activate_tab, "Bring a tab to the front", "tabs", **_TAB),
    Route("POST", "/tabs/{tab_id}/navigate", with_body(NAVIGATE_BODY, navigate_tab),
          "Load a URL in a tab", "tabs",
          not_found=True, id_description=TAB_ID, id_pattern=TAB_ID_PATTERN,
          extra_errors=(403, 409, 502, 504)),
    Route("POST", "/tabs/{tab_id}/reload", with_body(RELOAD_BODY, reload_tab, optional=True),
          "Load the tab's URL again (revives a crashed tab)",
          "tabs", **_TAB),
    Route("POST", "/reset", with_body(RESET_BODY, reset, optional=True),
          "Restart Chromium on a fresh profile with these tabs", "tabs",
          extra_errors=(403, 409, 502, 504),
          description="No cookies, storage or history survive, unless `profile` names a profile to "
                      "start on. Answers when every new tab has loaded; later crash restarts open "
                      "these URLs too."),
    Route("GET", "/layout", layout, "Every tab's accessibility tree with document, viewport and screen "
          "bounds", "layout", query=LAYOUT_QUERY, not_found=True, extra_errors=(504,), concurrency=24,
          success_headers={"ETag": "Send it back as If-None-Match: 304 while nothing changed.",
                           "Server-Timing": "layout;dur=..., encode;dur=... (ms)"},
          description="The body's schema: layout_schema.jsonc in the repository. Each tab has "
                      "pendingNavigation: {\"url\"} while it loads a new document (its layout is "
                      "then the previous document's, as last read, answered at once; a tab never "
                      "read has the failed layout navigation_pending once the navigation is 2 s "
                      "old), else null. With "
                      "Chromium on Wayland each tab also has screenBounds: {\"exact\", \"reason\"} "
                      "(docs/sway.md)."),
    Route("GET", "/", layout, "Same as GET /layout", "layout", query=LAYOUT_QUERY, not_found=True,
          extra_errors=(504,), concurrency=24),
    Route("POST", "/settle", with_body(SETTLE_BODY, settle_evidence),
          "Whether the tab in front took an act's clicks in and has "
          "nothing left to draw (desktopd's settle)", "layout", returns=SETTLE_RESULT,
          description="Answers idle, changed or none (no evidence); see sidecar/server/settle_evidence.py."),
    *AGENT_ROUTES,
    *LIVE_BROWSER_ROUTES,
    *STATE_ROUTES,
]
OPENAPI_BODY = json.dumps(build_openapi(
    ROUTES, title="desktopd sidecar", version=__version__, texts=ERROR_TEXT,
    description="Chromium on the desktop: its tabs, and each tab's accessibility tree with bounds in "
                "document, viewport and screen pixels."))


def setup_routes(app: web.Application) -> None:
    register(app, ROUTES)
