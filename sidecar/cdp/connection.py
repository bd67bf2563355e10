"""One persistent WebSocket to Chromium's *browser* endpoint, shared by every tab (flat sessions).

Design points, each one a bug seen in other CDP clients:
- every call has a timeout, and a timed-out call's entry is removed (no slow leak of futures);
- when the socket closes, EVERY pending call fails at once with CDPDisconnected (no hang until
  each timeout expires);
- calls addressed to a session fail as soon as that session detaches or its renderer crashes;
- events reach sync callbacks inline (cheap bookkeeping such as the target tracker) or bounded
  ``EventStream`` queues for async consumers: a slow consumer loses events (counted), it never
  grows memory without bound;
- multi-MB replies (a 10,000-node AX tree is ~10 MB) are parsed with the cyclic GC paused: the
  parse allocates millions of objects and the collector's passes over them doubled the parse time;
- events nobody listens to are not parsed at all: Chromium writes ``{"method":"..."`` first, so
  the method name is read from the prefix (a page with Network or DOM events enabled by someone
  else can emit thousands per second).  Parsing in a thread would not help: json holds the GIL.

Reconnecting is the owner's job (``sidecar.browser.supervisor``): a CDPConnection is single-use, and
``wait_closed()`` tells the owner when it died.

Works with websockets 10.4 (Debian bookworm, legacy client) and 17 (PyPI): only ``connect`` with
keyword arguments both accept, ``send``, ``close`` and ``async for`` are used.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import inspect
import itertools
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypedDict

import websockets
from websockets.exceptions import ConnectionClosed, WebSocketException

from httpapi.bounded import within
from httpapi.json_types import JSONObject, JSONValue

from .protocol.cdp_send import BrowserCommands

log = logging.getLogger(__name__)

EventCallback = Callable[[dict, "str | None"], None]

# A whole-page AX tree or DOM snapshot can be tens of MB; refusing it would break /layout.
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
# Replies larger than this are parsed with the cyclic garbage collector paused.
LARGE_MESSAGE_CHARS = 256 * 1024
# Chromium serialises events with "method" first; lets us skip parsing unwanted ones.
_EVENT_PREFIX = re.compile(r'\{"method":"([^"]+)"')
# Events the connection itself acts on, listened to or not.
_BUILTIN_EVENTS = frozenset({"Target.detachedFromTarget", "Inspector.targetCrashed"})
# Chromium's reply when a message names a session that no longer exists.
SESSION_NOT_FOUND = -32001
# JSON-RPC's "invalid params", which Chromium answers e.g. for a target id it does not know.
INVALID_PARAMS = -32602


class CDPError(Exception):
    """Chromium answered a call with an error object (or the call could not be answered)."""

    def __init__(self, message: str, *, code: int | None = None, method: str | None = None,
                 data: JSONValue = None) -> None:
        super().__init__(f"{method}: {message}" if method else message)
        self.code = code
        self.message = message
        self.method = method
        self.data = data


class CDPTimeout(CDPError):
    """No answer within the call's timeout."""


class CDPDisconnected(CDPError):
    """The WebSocket to Chromium is gone (or could not be opened)."""


class CDPSessionClosed(CDPError):
    """The target the call was addressed to detached, closed or crashed before answering."""


@dataclass
class _Pending:
    future: asyncio.Future[JSONObject]
    method: str
    session_id: str | None


def _parse(raw: str | bytes) -> JSONValue:
    if len(raw) < LARGE_MESSAGE_CHARS or not gc.isenabled():
        return json.loads(raw)
    # Millions of fresh dicts/lists would trigger several full collections mid-parse; none of
    # them can be garbage yet, so the collector's work is pure waste here.
    gc.disable()
    try:
        return json.loads(raw)
    finally:
        gc.enable()


class _ConnectOptions(TypedDict, total=False):
    max_size: int
    compression: None
    ping_interval: None
    open_timeout: float
    close_timeout: float
    proxy: None


class _Socket(Protocol):
    """What is used of a websockets client connection (legacy 10.4 and 17 alike)."""

    async def send(self, message: str) -> None: ...

    async def close(self) -> None: ...

    def __aiter__(self) -> AsyncIterator[str | bytes]: ...


def _connect_kwargs(open_timeout: float, max_size: int) -> _ConnectOptions:
    kwargs: _ConnectOptions = {
        "max_size": max_size,
        "compression": None,       # Chromium does not compress; skip the negotiation
        "ping_interval": None,     # a multi-MB parse may stall the loop; liveness = the process
        "open_timeout": open_timeout,
        "close_timeout": 2,
    }
    params = inspect.signature(websockets.connect).parameters
    if "proxy" in params:          # websockets >= 15 would honour HTTP(S)_PROXY even for loopback
        kwargs["proxy"] = None
    return kwargs


class EventStream:
    """A bounded queue of ``(method, params, session_id)`` events for one async consumer.

    Full queue: the new event is dropped and counted (``dropped``), so a stalled consumer costs
    at most ``maxsize`` events of memory. Use as ``async with conn.events(...) as stream``.
    """

    def __init__(self, conn: CDPConnection, methods: Iterable[str], maxsize: int,
                 session_id: str | None) -> None:
        self._conn = conn
        self.methods = frozenset(methods)
        self.maxsize = maxsize
        self.session_id = session_id
        self.dropped = 0
        self._items: collections.deque[tuple[str, dict, str | None]] = collections.deque()
        self._wakeup = asyncio.Event()
        self._closed = False

    def _offer(self, method: str, params: dict, session_id: str | None) -> None:
        if self._closed or (self.session_id is not None and session_id != self.session_id):
            return
        if len(self._items) >= self.maxsize:
            self.dropped += 1
            self._conn._dropped_events += 1
            return
        self._items.append((method, params, session_id))
        self._wakeup.set()

    def _end(self) -> None:
        self._closed = True
        self._wakeup.set()

    async def get(self, timeout: float | None = None) -> tuple[str, dict, str | None]:
        """The next event; CDPTimeout after ``timeout`` s, CDPDisconnected once the socket is gone."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not self._items:
            if self._closed:
                raise CDPDisconnected(f"event stream ended: {self._conn.close_reason or 'closed'}")
            self._wakeup.clear()
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                raise CDPTimeout(f"no {sorted(self.methods)} event within {timeout} s")
            try:
                await within(self._wakeup.wait(), remaining)
            except asyncio.TimeoutError:
                raise CDPTimeout(f"no {sorted(self.methods)} event within {timeout} s") from None
        return self._items.popleft()

    def close(self) -> None:
        self._conn._remove_stream(self)
        self._end()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class CDPConnection(BrowserCommands):
    """A connected CDP client. Create with ``await CDPConnection.connect(ws_url)``."""

    def __init__(self, ws: _Socket, ws_url: str, call_timeout: float) -> None:
        self._ws = ws
        self.ws_url = ws_url
        self.call_timeout = call_timeout
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._listeners: dict[str, list[EventCallback]] = {}
        self._streams: list[EventStream] = []
        self._dropped_events = 0
        self._sent = 0
        self._received = 0
        self._skipped_events = 0
        self.close_reason: str | None = None
        self._reader: asyncio.Task | None = None

    @classmethod
    async def connect(cls, ws_url: str, call_timeout: float = 10.0, *, open_timeout: float = 10.0,
                      max_size: int = MAX_MESSAGE_BYTES) -> CDPConnection:
        """Open the WebSocket; CDPDisconnected (never a hang) when Chromium does not accept it."""
        try:
            ws = await within(
                websockets.connect(ws_url, **_connect_kwargs(open_timeout, max_size)),
                open_timeout + 1)
        except (OSError, WebSocketException, asyncio.TimeoutError, ValueError) as exc:
            raise CDPDisconnected(f"cannot connect to {ws_url}: {type(exc).__name__}: {exc}") from exc
        conn = cls(ws, ws_url, call_timeout)
        conn._reader = asyncio.get_running_loop().create_task(conn._read_loop())
        return conn

    # -- state -------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.close_reason is None

    def stats(self) -> dict[str, int]:
        return {"sent": self._sent, "received": self._received, "pending": len(self._pending),
                "dropped_events": self._dropped_events, "skipped_events": self._skipped_events}

    async def wait_closed(self) -> str:
        """Wait until the socket is gone; return why."""
        if self._reader is not None:
            await asyncio.shield(self._reader)
        return self.close_reason or "closed"

    # -- calls -------------------------------------------------------------------------------

    async def send_raw(self, method: str, params: Mapping[str, object] | None = None, *,
                       session_id: str | None = None, timeout: float | None = None) -> JSONObject:
        """Call ``method`` (on ``session_id`` if given) and return its ``result`` object (send()
        is the typed way: BrowserCommands)."""
        if self.close_reason is not None:
            raise CDPDisconnected(f"not connected ({self.close_reason})", method=method)
        msg_id = next(self._ids)
        message: dict[str, object] = {"id": msg_id, "method": method, "params": dict(params or {})}
        if session_id is not None:
            message["sessionId"] = session_id
        future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = _Pending(future, method, session_id)
        limit = self.call_timeout if timeout is None else timeout
        try:
            try:
                await self._ws.send(json.dumps(message))
            except ConnectionClosed as exc:
                raise CDPDisconnected(f"socket closed while sending: {exc}", method=method) from None
            self._sent += 1
            try:
                return await within(future, limit)
            except asyncio.TimeoutError:
                raise CDPTimeout(f"no reply within {limit} s", method=method) from None
        finally:
            self._pending.pop(msg_id, None)

    # -- events ------------------------------------------------------------------------------

    def on(self, method: str, callback: EventCallback) -> None:
        """Call ``callback(params, session_id)`` for every ``method`` event, inline and in order."""
        self._listeners.setdefault(method, []).append(callback)

    def off(self, method: str, callback: EventCallback) -> None:
        callbacks = self._listeners.get(method, [])
        if callback in callbacks:
            callbacks.remove(callback)

    def events(self, *methods: str, maxsize: int = 1000, session_id: str | None = None) -> EventStream:
        """A bounded stream of the given events (optionally of one session only)."""
        stream = EventStream(self, methods, maxsize, session_id)
        if self.close_reason is not None:
            stream._end()
        else:
            self._streams.append(stream)
        return stream

    def _remove_stream(self, stream: EventStream) -> None:
        if stream in self._streams:
            self._streams.remove(stream)

    # -- lifecycle ---------------------------------------------------------------------------

    async def close(self) -> None:
        if self.close_reason is None:
            self.close_reason = "closed by the client"
        try:
            await within(self._ws.close(), 3)
        except (asyncio.TimeoutError, OSError, WebSocketException):
            pass
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except asyncio.CancelledError:
                pass
        self._shutdown()

    async def _read_loop(self) -> None:
        try:
            async for raw in self._ws:
                self._received += 1
                if isinstance(raw, str) and raw.startswith('{"method":"'):
                    prefix = _EVENT_PREFIX.match(raw)
                    if prefix is not None and not self._wanted(prefix.group(1)):
                        self._skipped_events += 1
                        continue
                try:
                    message = _parse(raw)
                except ValueError:
                    log.warning("ignoring a CDP message that is not JSON (%d chars)", len(raw))
                    continue
                if isinstance(message, dict):
                    self._handle(message)
            reason = "Chromium closed the connection"
        except ConnectionClosed as exc:
            reason = f"connection lost: {exc}"
        except asyncio.CancelledError:
            reason = "closed by the client"
            raise
        except Exception as exc:  # noqa: BLE001 - whatever broke the reader, the socket is unusable
            log.exception("CDP reader failed")
            reason = f"reader failed: {type(exc).__name__}: {exc}"
        finally:
            if self.close_reason is None:
                self.close_reason = reason
            self._shutdown()

    def _wanted(self, method: str) -> bool:
        return (method in _BUILTIN_EVENTS or bool(self._listeners.get(method))
                or any(method in stream.methods for stream in self._streams))

    def _shutdown(self) -> None:
        """Fail every pending call and end every stream: nobody waits for a dead socket."""
        reason = self.close_reason or "closed"
        pending, self._pending = self._pending, {}
        for entry in pending.values():
            if not entry.future.done():
                entry.future.set_exception(CDPDisconnected(reason, method=entry.method))
        streams, self._streams = self._streams, []
        for stream in streams:
            stream._end()

    def _handle(self, message: dict) -> None:
        msg_id = message.get("id")
        if msg_id is not None:
            entry = self._pending.pop(msg_id, None)
            if entry is None or entry.future.done():
                return                      # its caller timed out or was cancelled
            error = message.get("error")
            if error is None:
                entry.future.set_result(message.get("result", {}))
            else:
                entry.future.set_exception(self._error(entry, error))
            return
        method = message.get("method")
        if not method:
            return
        params = message.get("params") or {}
        session_id = message.get("sessionId")
        if method == "Target.detachedFromTarget":
            self._fail_session(params.get("sessionId"), "the target detached")
        elif method == "Inspector.targetCrashed" and session_id:
            self._fail_session(session_id, "the renderer crashed")
        for callback in tuple(self._listeners.get(method, ())):
            try:
                callback(params, session_id)
            except Exception:  # noqa: BLE001 - one bad listener must not kill the reader
                log.exception("CDP event listener for %s failed", method)
        for stream in tuple(self._streams):
            if method in stream.methods:
                stream._offer(method, params, session_id)

    @staticmethod
    def _error(entry: _Pending, error: dict) -> CDPError:
        code = error.get("code")
        text = str(error.get("message", "unknown error"))
        kind = CDPError
        if entry.session_id is not None and (code == SESSION_NOT_FOUND or "session" in text.lower()
                                             and "not found" in text.lower()):
            kind = CDPSessionClosed
        return kind(text, code=code, method=entry.method, data=error.get("data"))

    def _fail_session(self, session_id: str | None, why: str) -> None:
        if not session_id:
            return
        for msg_id, entry in list(self._pending.items()):
            if entry.session_id == session_id and not entry.future.done():
                del self._pending[msg_id]
                entry.future.set_exception(CDPSessionClosed(why, method=entry.method))
