"""The clipboard through wlroots' data-control protocol (zwlr_data_control_manager_v1).

It has a Wayland connection of its own and a thread that dispatches it: whoever holds the
selection must answer ``send`` requests whenever a client pastes, as X11's clipboard owner
(desktopd/x11/clipboard.py) does on its thread."""

from __future__ import annotations

import logging
import os
import select
import threading
import time

from .registry import Registry
from .wire import Args, Connection, ConnectionLost, Handler, Proxy, Reader, WaylandError

log = logging.getLogger(__name__)

SYNC = 0   # wl_display.sync
CREATE_DATA_SOURCE, GET_DATA_DEVICE = 0, 1
DEVICE_SET_SELECTION = 0
DEV_DATA_OFFER, DEV_SELECTION, DEV_FINISHED = 0, 1, 2
OFFER_RECEIVE, OFFER_DESTROY = 0, 1
SOURCE_OFFER, SOURCE_DESTROY = 0, 1
SRC_SEND, SRC_CANCELLED = 0, 1
TEXT_TYPES = ("text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "TEXT", "STRING")
SET_TIMEOUT_S = 2.0


class Clipboard:
    def __init__(self, socket_path: str) -> None:
        self.conn = Connection(socket_path)
        registry = Registry(self.conn)
        seat, _ = registry.bind("wl_seat", 1)
        manager, _ = registry.bind("zwlr_data_control_manager_v1", 1)
        self._manager = manager
        self._device = self.conn.new_proxy("zwlr_data_control_device_v1", self._device_event)
        manager.request(GET_DATA_DEVICE, Args().uint(self._device.id).uint(seat.id))
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._mime_types: dict[int, list[str]] = {}     # offer id -> its types
        self._selection: Proxy | None = None
        self._selections = 0                            # selection events seen
        self._source: Proxy | None = None
        self.conn.roundtrip()                           # the current selection has arrived
        self._thread = threading.Thread(target=self._run, name="desktopd-wl-clipboard", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.conn.closed

    # ----------------------------------------------------------- the dispatching thread
    def _run(self) -> None:
        try:
            while not self.conn.closed:
                self.conn.dispatch(0.5)
        except (ConnectionLost, WaylandError, OSError) as exc:
            if not self.conn.closed:
                log.warning("clipboard connection lost: %s", exc)
                self.conn.closed = True

    def _device_event(self, opcode: int, reader: Reader) -> None:
        if opcode == DEV_DATA_OFFER:
            offer_id = reader.uint()
            self._mime_types[offer_id] = []
            self.conn.adopt(offer_id, "zwlr_data_control_offer_v1", self._offer_handler(offer_id))
        elif opcode == DEV_SELECTION:
            offer_id = reader.uint()
            with self._lock:
                old = self._selection
                self._selection = self.conn.proxy(offer_id) if offer_id else None
                self._selections += 1
                self._changed.notify_all()
            if old is not None and old is not self._selection:
                old.request(OFFER_DESTROY)
                self._mime_types.pop(old.id, None)
                self.conn.forget(old)
        elif opcode == DEV_FINISHED:
            log.warning("the compositor ended desktopd's data-control device")

    def _offer_handler(self, offer_id: int) -> Handler:
        return lambda opcode, reader: self._offer_event(offer_id, opcode, reader)

    def _offer_event(self, offer_id: int, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # offer(mime_type)
            self._mime_types.setdefault(offer_id, []).append(reader.string() or "")

    def _source_event(self, source: Proxy, text: bytes, opcode: int, reader: Reader) -> None:
        if opcode == SRC_SEND:
            reader.string()
            fd = reader.fd()
            # Its own thread: a slow reader must not stall this connection's events.
            threading.Thread(target=_write_all, args=(fd, text), daemon=True).start()
        elif opcode == SRC_CANCELLED:   # someone else holds the selection now
            source.request(SOURCE_DESTROY)
            self.conn.forget(source)
            with self._lock:
                if self._source is source:
                    self._source = None

    # ----------------------------------------------------------- called from the executor
    def _sync(self, timeout: float) -> None:
        """wl_display.sync answered on the dispatching thread: every selection change the
        compositor made before (another client's too) has been read."""
        done = threading.Event()
        callback = self.conn.new_proxy("wl_callback", lambda opcode, reader: done.set())
        self.conn.display.request(SYNC, Args().uint(callback.id))
        if not done.wait(timeout):
            raise WaylandError(f"the compositor did not answer within {timeout:g} s")

    def get_text(self, timeout: float) -> str | None:
        self._sync(timeout)
        with self._lock:
            offer = self._selection
            types = list(self._mime_types.get(offer.id, [])) if offer is not None else []
        mime = next((t for t in TEXT_TYPES if t in types), None)
        if offer is None or mime is None:
            return None
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        try:
            offer.request(OFFER_RECEIVE, Args().string(mime).fd(write_end))
        finally:
            os.close(write_end)
        try:
            return _read_all(read_end, timeout).decode("utf-8", "replace")
        finally:
            os.close(read_end)

    def _set_selection(self, source: Proxy | None) -> None:
        if source is None:
            # Clearing an empty selection changes nothing and the compositor says nothing:
            # a sync is the evidence that it has handled the request.
            self._device.request(DEVICE_SET_SELECTION, Args().uint(0))
            self._sync(SET_TIMEOUT_S)
            return
        with self._lock:
            seen = self._selections
            self._device.request(DEVICE_SET_SELECTION, Args().uint(source.id))
            # A new source: the compositor answers with a selection event for it.
            if not self._changed.wait_for(lambda: self._selections != seen, SET_TIMEOUT_S):
                raise WaylandError(f"the compositor did not confirm the clipboard within {SET_TIMEOUT_S:g} s")

    def set_text(self, text: str) -> None:
        source = self.conn.new_proxy("zwlr_data_control_source_v1")
        data = text.encode()
        source.on_event = lambda op, r: self._source_event(source, data, op, r)
        self._manager.request(CREATE_DATA_SOURCE, Args().uint(source.id))
        for mime in TEXT_TYPES:
            source.request(SOURCE_OFFER, Args().string(mime))
        with self._lock:
            self._source = source
        self._set_selection(source)

    def clear(self) -> None:
        self._set_selection(None)

    def close(self) -> None:
        self.conn.close()


def _write_all(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:   # the reader gave up: nothing to do
        log.debug("clipboard send failed: %s", exc)
    finally:
        os.close(fd)


def _read_all(fd: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError(f"the clipboard's owner did not send its text within {timeout:g} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
