"""HAR capture: the running browser's CDP Network events (which the agent session enables on
every tab and out-of-process frame) collected per tab into HAR 1.2 entries (har_entries.py).

One capture at a time per browser; it covers every tab (also those opened later) or the tabs
started one by one, and can be stopped per tab or whole. Response bodies are kept only when
asked, each up to ``max_body_bytes`` and all of them up to MAX_TOTAL_BODY_BYTES; entries beyond
MAX_ENTRIES are counted, not kept. A capture belongs to one browser connection: a restart or a
reset ends what it can see (said in the log's comment)."""

from __future__ import annotations

import asyncio
import base64
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from httpapi.bounded import within

from .. import __version__
from ..cdp.connection import CDPConnection, CDPError
from ..cdp.targets import TargetTracker
from .har_entries import Exchange, har_entry, iso_time

log = logging.getLogger(__name__)

MAX_ENTRIES = 20_000
MAX_TOTAL_BODY_BYTES = 64 << 20
BODY_TIMEOUT_S = 5.0
# How long a stop waits for wire headers still owed to finished requests.
EXTRA_INFO_WAIT_S = 1.0


class HarStateError(Exception):
    """A start or stop that does not fit the running capture (409); ``field`` names the field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class HarOptions:
    content: bool = False
    max_body_bytes: int = 1 << 20


@dataclass
class _Page:
    id: str
    tab: str
    wall_start: float
    start: float
    title: str
    on_content_load: float = -1
    on_load: float = -1

    def json(self) -> dict:
        return {"startedDateTime": iso_time(self.wall_start), "id": self.id, "title": self.title,
                "pageTimings": {"onContentLoad": self.on_content_load, "onLoad": self.on_load},
                "_tab": self.tab}


@dataclass
class HarCapture:
    conn: CDPConnection
    tracker: TargetTracker
    options: HarOptions
    all_tabs: bool
    tabs: set[str] = field(default_factory=set)        # captured tabs (all_tabs: those left out)
    dropped: int = 0
    body_bytes: int = 0
    _seq: itertools.count = field(default_factory=lambda: itertools.count(1))
    _live: dict[str, Exchange] = field(default_factory=dict)        # by requestId
    # Every hop of each requestId in order: the ExtraInfo events (the headers that went over the
    # wire, Set-Cookie among them) may come after the hop finished, or before it began.
    _hops: dict[str, list[Exchange]] = field(default_factory=dict)
    _exchanges: list[Exchange] = field(default_factory=list)        # in start order
    _pages: list[_Page] = field(default_factory=list)
    _current_page: dict[str, _Page] = field(default_factory=dict)   # by tab
    # ExtraInfo that came before its request's requestWillBeSent, by (request or response, id).
    _pending_extra: dict[tuple[str, str], dict] = field(default_factory=dict)
    _tasks: set[asyncio.Task] = field(default_factory=set)
    _extra_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _handlers: dict[str, Callable[[dict, str | None], None]] = field(default_factory=dict)

    # -- scope -------------------------------------------------------------------------------

    def captures(self, tab: str) -> bool:
        return (tab not in self.tabs) if self.all_tabs else (tab in self.tabs)

    def add_tab(self, tab: str) -> None:
        if self.captures(tab):
            raise HarStateError(f"tab {tab} is already being captured", "tab")
        if self.all_tabs:
            self.tabs.discard(tab)
        else:
            self.tabs.add(tab)

    def drop_tab(self, tab: str) -> list[Exchange]:
        """Ends the capture of ``tab``; its exchanges, taken out of the capture."""
        if self.all_tabs:
            self.tabs.add(tab)
        else:
            self.tabs.discard(tab)
        taken = [e for e in self._exchanges if e.tab == tab]
        self._exchanges = [e for e in self._exchanges if e.tab != tab]
        for exchange in taken:
            self._hops.pop(exchange.request_id, None)
        return taken

    @property
    def empty_scope(self) -> bool:
        return not self.all_tabs and not self.tabs

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._handlers = {
            "Network.requestWillBeSent": self._on_request,
            "Network.requestWillBeSentExtraInfo": self._on_request_extra,
            "Network.responseReceived": self._on_response,
            "Network.responseReceivedExtraInfo": self._on_response_extra,
            "Network.dataReceived": self._on_data,
            "Network.loadingFinished": self._on_finished,
            "Network.loadingFailed": self._on_failed,
            "Page.domContentEventFired": self._on_page_event("on_content_load"),
            "Page.loadEventFired": self._on_page_event("on_load"),
        }
        for method, handler in self._handlers.items():
            self.conn.on(method, handler)

    def stop(self) -> None:
        for method, handler in self._handlers.items():
            self.conn.off(method, handler)
        for task in list(self._tasks):
            task.cancel()

    async def settle(self) -> None:
        """Waits for what is still arriving about finished requests: the response bodies being
        fetched (each bounded by BODY_TIMEOUT_S), and the wire headers (Set-Cookie among them),
        whose ExtraInfo event Chromium may send after the request finished (bounded by
        EXTRA_INFO_WAIT_S)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks))
        deadline = asyncio.get_running_loop().time() + EXTRA_INFO_WAIT_S
        while any(_awaits_wire_headers(e) for e in self._exchanges):
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return
            self._extra_arrived.clear()
            try:
                await within(self._extra_arrived.wait(), remaining)
            except asyncio.TimeoutError:
                return

    # -- reading -----------------------------------------------------------------------------

    def log(self, exchanges: list[Exchange] | None = None, *, since: int = 0,
            comment: str | None = None) -> dict:
        chosen = [e for e in (self._exchanges if exchanges is None else exchanges) if e.seq >= since]
        refs = {e.page_ref for e in chosen}
        log_body: dict = {"version": "1.2", "creator": {"name": "desktopd sidecar", "version": __version__},
                          "pages": [page.json() for page in self._pages if page.id in refs],
                          "entries": [har_entry(e) for e in chosen]}
        notes = [note for note in (comment, f"{self.dropped} requests beyond {MAX_ENTRIES} were not kept"
                                   if self.dropped else None) if note]
        if notes:
            log_body["comment"] = "; ".join(notes)
        return {"log": log_body}

    @property
    def next_seq(self) -> int:
        return max((e.seq for e in self._exchanges), default=0) + 1

    # -- events (sync, in the connection's reader) --------------------------------------------

    def _tab(self, session_id: str | None) -> str | None:
        page = self.tracker.page_for_session(session_id) if session_id else None
        return page.target_id if page is not None and self.captures(page.target_id) else None

    def _on_request(self, params: dict, session_id: str | None) -> None:
        tab = self._tab(session_id)
        if tab is None:
            return
        request_id = params["requestId"]
        previous = self._live.pop(request_id, None)
        if previous is not None and params.get("redirectResponse"):
            previous.response = params["redirectResponse"]
            previous.redirect_url = params["request"].get("url", "")
            previous.end = params["timestamp"]
        if len(self._exchanges) >= MAX_ENTRIES:
            self.dropped += 1
            return
        if params.get("type") == "Document" and params.get("frameId") == tab \
                and params.get("loaderId") == request_id:
            page = _Page(f"page_{len(self._pages) + 1}", tab, params.get("wallTime", 0.0),
                         params["timestamp"], params["request"].get("url", ""))
            self._pages.append(page)
            self._current_page[tab] = page
        current = self._current_page.get(tab)
        exchange = Exchange(seq=next(self._seq), request_id=request_id, tab=tab,
                            page_ref=current.id if current else None,
                            wall_start=params.get("wallTime", 0.0), start=params["timestamp"],
                            request=params["request"], resource_type=params.get("type", ""))
        for kind in ("request", "response"):
            extra = self._pending_extra.pop((kind, request_id), None)
            if extra is not None:
                setattr(exchange, f"{kind}_headers", extra.get("headers"))
        self._live[request_id] = exchange
        self._hops.setdefault(request_id, []).append(exchange)
        self._exchanges.append(exchange)

    def _first_hop(self, request_id: str, without: str) -> Exchange | None:
        return next((hop for hop in self._hops.get(request_id, ()) if getattr(hop, without) is None), None)

    def _on_request_extra(self, params: dict, session_id: str | None) -> None:
        self._wire_headers("request", params, session_id)

    def _on_response(self, params: dict, _session_id: str | None) -> None:
        exchange = self._live.get(params.get("requestId", ""))
        if exchange is not None:
            exchange.response = params["response"]

    def _on_response_extra(self, params: dict, session_id: str | None) -> None:
        self._wire_headers("response", params, session_id)
        self._extra_arrived.set()

    def _wire_headers(self, kind: str, params: dict, session_id: str | None) -> None:
        """An ExtraInfo event's headers onto the first hop still without them; one that came
        before its request began waits for it (the network service and the renderer send their
        events independently)."""
        exchange = self._first_hop(params.get("requestId", ""), f"{kind}_headers")
        if exchange is not None:
            setattr(exchange, f"{kind}_headers", params.get("headers"))
        elif self._tab(session_id) is not None and len(self._pending_extra) < 1000:
            self._pending_extra[(kind, params["requestId"])] = params

    def _on_data(self, params: dict, _session_id: str | None) -> None:
        exchange = self._live.get(params.get("requestId", ""))
        if exchange is not None:
            exchange.decoded_length += int(params.get("dataLength", 0))

    def _on_finished(self, params: dict, session_id: str | None) -> None:
        exchange = self._live.pop(params.get("requestId", ""), None)
        if exchange is None:
            return
        exchange.end = params.get("timestamp")
        exchange.encoded_length = int(params.get("encodedDataLength", -1))
        if self.options.content and session_id is not None:
            if exchange.decoded_length > self.options.max_body_bytes:
                exchange.body = {"comment": f"body of {exchange.decoded_length} bytes not kept "
                                            f"(max_body_bytes {self.options.max_body_bytes})"}
            elif self.body_bytes + exchange.decoded_length > MAX_TOTAL_BODY_BYTES:
                exchange.body = {"comment": f"body not kept: the capture holds {MAX_TOTAL_BODY_BYTES} "
                                            "bytes of bodies already"}
            else:
                task = asyncio.get_running_loop().create_task(self._fetch_body(exchange, session_id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    def _on_failed(self, params: dict, _session_id: str | None) -> None:
        exchange = self._live.pop(params.get("requestId", ""), None)
        if exchange is not None:
            exchange.end = params.get("timestamp")
            exchange.error = params.get("errorText") or ("canceled" if params.get("canceled") else "failed")

    def _on_page_event(self, attribute: str) -> Callable[[dict, str | None], None]:
        def handler(params: dict, session_id: str | None) -> None:
            tab = self._tab(session_id)
            page = self._current_page.get(tab) if tab is not None else None
            if page is not None and getattr(page, attribute) < 0:
                setattr(page, attribute, round((params["timestamp"] - page.start) * 1000, 3))
        return handler

    async def _fetch_body(self, exchange: Exchange, session_id: str) -> None:
        try:
            reply = await self.conn.send("Network.getResponseBody", {"requestId": exchange.request_id},
                                         session_id=session_id, timeout=BODY_TIMEOUT_S)
        except CDPError as exc:
            exchange.body = {"comment": f"body not available: {exc.message}"}
            return
        text = reply.get("body", "")
        size = len(base64.b64decode(text)) if reply.get("base64Encoded") else len(text.encode())
        if size > self.options.max_body_bytes:
            exchange.body = {"comment": f"body of {size} bytes not kept (max_body_bytes "
                                        f"{self.options.max_body_bytes})"}
            return
        self.body_bytes += size
        exchange.decoded_length = size          # what the page got (dataReceived can miss a cached body)
        exchange.body = {"text": text, **({"encoding": "base64"} if reply.get("base64Encoded") else {})}


def _awaits_wire_headers(exchange: Exchange) -> bool:
    """A request answered over the network whose wire headers have not come yet (a cached,
    service-worker or non-HTTP answer never gets them)."""
    response = exchange.response
    if response is None or exchange.response_headers is not None or exchange.end is None:
        return False
    if any(response.get(flag) for flag in ("fromDiskCache", "fromServiceWorker", "fromPrefetchCache")):
        return False
    return str(response.get("url", "")).startswith(("http://", "https://"))
