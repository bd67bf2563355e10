"""HTTP routes: health, targets/tabs (list, open, close, activate, navigate) and layout."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from desktopd.web.errors import ApiError, invalid, not_found, read_json_object

from . import keys
from .cdp.connection import CDPConnection, CDPError, CDPSessionClosed, CDPTimeout
from .cdp.targets import PageTarget, TargetTracker
from .crash_recovery import revive
from .tab_health import TabHealth
from .url_policy import UrlPolicy, UrlRefused

# How long /tabs waits for a tab to say whether it is the one in front.
VISIBILITY_BUDGET_S = 2.0

# Resolves in the committed document once its load event fired (at once if it already did).
_WAIT_FOR_LOAD = ("document.readyState === 'complete' || new Promise(resolve => "
                  "addEventListener('load', () => resolve(true), {once: true}))")


def setup_routes(app: web.Application) -> None:
    app.router.add_get("/health", health)
    app.router.add_get("/targets", list_targets)
    app.router.add_get("/tabs", list_tabs)
    app.router.add_post("/tabs", open_tab)
    app.router.add_get("/tabs/{tab_id}", get_tab)
    app.router.add_delete("/tabs/{tab_id}", close_tab)
    app.router.add_post("/tabs/{tab_id}/activate", activate_tab)
    app.router.add_post("/tabs/{tab_id}/navigate", navigate_tab)
    app.router.add_post("/tabs/{tab_id}/reload", reload_tab)
    app.router.add_get("/layout", layout)
    app.router.add_get("/", layout)


def _session(request: web.Request) -> tuple[CDPConnection, TargetTracker]:
    return request.app[keys.SUPERVISOR].session()


def _timeout(request: web.Request) -> float:
    return request.app[keys.SETTINGS].cdp_timeout


def tab_json(page: PageTarget, index: int, visible: bool | None = None,
             health: TabHealth | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"id": page.target_id, "type": "page", "title": page.title,
                            "url": page.url, "attached": True, "index": index,
                            "frames": len(page.children), "visible": visible,
                            "responsive": not page.crashed and not (health is not None and
                                                                    health.unresponsive(page.target_id))}
    if page.opener_id:
        body["openerId"] = page.opener_id
    if page.crashed:
        body["crashed"] = True
    return body


def _find_tab(tracker: TargetTracker, tab_id: str) -> tuple[PageTarget, int]:
    page = tracker.find_page(tab_id)
    if page is None:
        raise not_found(f"no tab with id (or unique id prefix) {tab_id!r}; see GET /tabs")
    return page, tracker.pages().index(page)


# -- health and listings --------------------------------------------------------------------------

async def health(request: web.Request) -> web.Response:
    """200 when Chromium is connected with at least one tab; 503 (same body) otherwise."""
    body = await request.app[keys.SUPERVISOR].health()
    reads = request.app[keys.LAYOUT_READS]
    body["layout_reads"] = {"started": reads.started, "joined": reads.joined}
    return web.json_response(body, status=200 if body["status"] == "ok" else 503)


async def list_targets(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    return web.json_response({"targets": tracker.targets()})


def _tab_health(request: web.Request) -> TabHealth | None:
    return request.app[keys.SUPERVISOR].tab_health


async def _visible(page: PageTarget, health: TabHealth | None) -> bool | None:
    """Whether the tab is the one shown in its window (so desktopd clicks reach it); None when
    the tab cannot say (crashed, or not answering: then it is not waited for)."""
    if page.crashed or (health is not None and health.unresponsive(page.target_id)):
        return None
    try:
        reply = await page.send("Runtime.evaluate", {"expression": "document.visibilityState",
                                                     "returnByValue": True},
                                timeout=min(VISIBILITY_BUDGET_S, health.budget_s) if health else VISIBILITY_BUDGET_S)
    except CDPTimeout:
        if health is not None:
            health.mark(page)
        return None
    except CDPError:
        return None
    return reply.get("result", {}).get("value") == "visible"


async def list_tabs(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    pages = tracker.pages()
    health = _tab_health(request)
    visible = await asyncio.gather(*(_visible(p, health) for p in pages))
    return web.json_response({"tabs": [tab_json(p, i, v, health) for i, (p, v) in
                                       enumerate(zip(pages, visible))]})


async def get_tab(request: web.Request) -> web.Response:
    _conn, tracker = _session(request)
    await tracker.refresh_titles()
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    health = _tab_health(request)
    return web.json_response(tab_json(page, index, await _visible(page, health), health))


# -- tab actions --------------------------------------------------------------------------------

def _url_field(request: web.Request, body: dict, *, required: bool) -> str:
    url = body.get("url")
    if url is None and not required:
        return "about:blank"
    if not isinstance(url, str) or not url.strip():
        raise invalid("url", "expected a non-empty string such as https://example.com/")
    if ":" not in url:
        raise invalid("url", f"expected an absolute URL with a scheme, got {url!r}")
    url = url.strip()
    try:
        UrlPolicy(request.app[keys.SETTINGS].file_roots).check(url)
    except UrlRefused as refused:
        raise ApiError(403, "url_refused", str(refused), field="url") from None
    return url


def _bool_field(body: dict, name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise invalid(name, f"expected true or false, got {value!r}")
    return value


async def _optional_json(request: web.Request) -> dict:
    return await read_json_object(request) if request.can_read_body else {}


async def open_tab(request: web.Request) -> web.Response:
    """Body (optional): {"url": "https://...", "background": false}. 201 with the new tab."""
    body = await _optional_json(request)
    url = _url_field(request, body, required=False)
    background = _bool_field(body, "background", False)
    conn, tracker = _session(request)
    created = await conn.send("Target.createTarget", {"url": url, "background": background})
    page = await tracker.wait_for_page(created["targetId"], _timeout(request))
    return web.json_response(tab_json(page, tracker.pages().index(page)), status=201)


async def close_tab(request: web.Request) -> web.Response:
    conn, tracker = _session(request)
    page, _index = _find_tab(tracker, request.match_info["tab_id"])
    result = await conn.send("Target.closeTarget", {"targetId": page.target_id})
    if result.get("success") is False:
        raise ApiError(409, "not_closed", f"Chromium refused to close tab {page.target_id}")
    await tracker.wait_for(lambda: tracker.find_page(page.target_id) is None, _timeout(request))
    return web.json_response({"closed": page.target_id})


async def activate_tab(request: web.Request) -> web.Response:
    conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    await conn.send("Target.activateTarget", {"targetId": page.target_id})
    return web.json_response(tab_json(page, index, await _visible(page, _tab_health(request))))


def _wait_options(request: web.Request, body: dict) -> tuple[str, float]:
    wait = body.get("wait", "load")
    if wait not in ("load", "none"):
        raise invalid("wait", f"expected 'load' or 'none', got {wait!r}")
    timeout = body.get("timeout", _timeout(request))
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 300:
        raise invalid("timeout", f"expected seconds between 0 and 300, got {timeout!r}")
    return wait, float(timeout)


async def _wait_for_load(page: PageTarget, url: str, timeout: float) -> None:
    try:
        await page.send("Runtime.evaluate", {"expression": _WAIT_FOR_LOAD, "awaitPromise": True,
                                             "returnByValue": True}, timeout=timeout)
    except CDPTimeout:
        raise ApiError(504, "load_timeout", f"{url} did not finish loading within {timeout} s") from None


async def navigate_tab(request: web.Request) -> web.Response:
    """Body: {"url": "...", "wait": "load" | "none", "timeout": seconds}. Returns the tab."""
    body = await read_json_object(request)
    url = _url_field(request, body, required=True)
    wait, timeout = _wait_options(request, body)
    _conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    # Page.navigate is handled by the browser process, so it also revives a crashed tab; it
    # answers once the new document committed (or failed), which is why errorText is known here.
    result = await page.send("Page.navigate", {"url": url}, timeout=timeout)
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


async def reload_tab(request: web.Request) -> web.Response:
    """Body (optional): {"wait": "load" | "none", "timeout": seconds}. Loads the tab's URL
    again as a new document (so a tab whose renderer crashed gets a new renderer, which
    Page.reload cannot give). Returns the tab."""
    body = await _optional_json(request)
    wait, timeout = _wait_options(request, body)
    _conn, tracker = _session(request)
    page, index = _find_tab(tracker, request.match_info["tab_id"])
    result = await revive(page, timeout)
    if result.get("errorText"):
        raise ApiError(502, "navigation_failed", {"url": page.url, "error": result["errorText"]})
    if wait == "load" and result.get("loaderId"):
        await _wait_for_load(page, page.url, timeout)
    await tracker.refresh(page.target_id)
    if tracker.find_page(page.target_id) is None:
        raise CDPSessionClosed("the tab closed while reloading")
    await tracker.confirm_revived(page)
    return web.json_response(tab_json(page, index))


# -- layout ----------------------------------------------------------------------------------

async def layout(request: web.Request) -> web.Response:
    """Delegates to sidecar.layout (the layout builder); the whole request is time-bounded.

    The body is reused while the tabs' layouts are unchanged (see sidecar.layout.encoding); it
    carries an ETag (If-None-Match -> 304) and is gzipped when the client accepts gzip."""
    try:
        from .layout import LayoutOptions, build_layout
        from .layout.encoding import (GZIP_MIN_BYTES, accepts_gzip, encoder_for, etag_matches,
                                      options_key)
    except ImportError as exc:
        if exc.name not in ("sidecar.layout", "sidecar.layout.builder", "sidecar.layout.options",
                            "sidecar.layout.encoding"):
            raise
        raise ApiError(501, "not_implemented", "the layout builder (sidecar.layout) is not installed") from None
    options = LayoutOptions.from_query(request.query)
    conn, tracker = _session(request)
    budget = 3 * _timeout(request)
    started = time.perf_counter()
    try:
        # The same question about the same browser: one read answers every request waiting.
        key = (id(tracker), options.tab, options.fresh, options_key(options))
        body = await asyncio.wait_for(request.app[keys.LAYOUT_READS].read(
            key, lambda: build_layout(conn, tracker, options, _tab_health(request))), budget)
    except asyncio.TimeoutError:
        raise ApiError(504, "layout_timeout", f"the layout took longer than {budget:.0f} s") from None
    built = time.perf_counter()
    encoder = encoder_for(tracker)
    encoded = encoder.encode(body, options_key(options))
    # no-cache: a client may keep the body but must revalidate (cheaply, with If-None-Match).
    # Server-Timing: where the request's time went (browsers' dev tools and curl -v show it).
    headers = {"ETag": encoded.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding",
               "Server-Timing": f"layout;dur={(built - started) * 1000:.1f}, "
                                f"encode;dur={(time.perf_counter() - built) * 1000:.1f}"}
    if etag_matches(request.headers.get("If-None-Match"), encoded.etag):
        return web.Response(status=304, headers=headers)
    data = encoded.data
    if len(data) >= GZIP_MIN_BYTES and accepts_gzip(request.headers.get("Accept-Encoding")):
        data = await asyncio.get_running_loop().run_in_executor(None, encoder.gzipped, encoded)
        headers["Content-Encoding"] = "gzip"
    return web.Response(body=data, headers=headers, content_type="application/json", charset="utf-8")
