"""The CLIPBOARD selection, in-process: desktopd owns it to serve text it was given, and reads
it from other owners with ConvertSelection.

X selections are a conversation, not a buffer: whoever owns CLIPBOARD must answer every
SelectionRequest for as long as it owns it. So the clipboard lives on a display connection of its
own, served by one thread that is the only user of that connection. Other threads hand it jobs
through a queue (woken by a pipe) and wait on a future with a timeout, so nothing hangs forever.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypedDict

from Xlib import X, Xatom
from Xlib import error as xerror
from Xlib.protocol import event as xevent
from Xlib.protocol import request as xrequest
from Xlib.protocol.rq import Event
from Xlib.xobject.drawable import Window

from .connection import open_display
from .errors import DisplayUnavailable, X11Error, is_connection_loss

log = logging.getLogger(__name__)

MAX_TEXT_BYTES = 16 * 1024 * 1024
# Larger answers go out incrementally (ICCCM INCR): one ChangeProperty must stay well under the
# core request limit of 256 KiB, and chunks keep the server's memory use small.
INCR_CHUNK = 64 * 1024
INCR_IDLE_S = 30.0  # a requestor that stops deleting the property is given up on
INCR_CHUNK_WAIT_S = 2.0
# What the serving thread is handed: take or drop ownership (None), or read the text.
Job = Callable[[], "str | None"]


class IncrTransfer(TypedDict):
    """An incremental transfer to a requestor, in progress."""
    window: Window
    type: int          # the property's type: UTF8_STRING or STRING
    data: bytes
    offset: int        # sent so far
    touched: float     # monotonic time of the last chunk


class Clipboard:
    def __init__(self, display_name: str) -> None:
        self._dpy = open_display(display_name, "clipboard display")
        self._dpy.set_error_handler(lambda err, req: log.debug("clipboard X error: %s", err))
        root = self._dpy.screen().root
        self._window = root.create_window(-10, -10, 1, 1, 0, X.CopyFromParent,
                                          event_mask=X.PropertyChangeMask)
        atom = self._dpy.intern_atom
        self.CLIPBOARD, self.TARGETS, self.UTF8 = atom("CLIPBOARD"), atom("TARGETS"), atom("UTF8_STRING")
        self.TEXT, self.TIMESTAMP, self.INCR = atom("TEXT"), atom("TIMESTAMP"), atom("INCR")
        self.PROPERTY = atom("DESKTOPD_CLIPBOARD")
        self._text: bytes | None = None        # what we serve while we own CLIPBOARD
        self._owned_since = X.CurrentTime
        self._jobs: queue.Queue[tuple[Job, Future[str | None]]] = queue.Queue()
        self._wake_r, self._wake_w = os.pipe()
        self._closing = False
        # Incremental transfers in progress: (requestor id, property) -> transfer state.
        self._incr: dict[tuple[int, int], IncrTransfer] = {}
        self._dpy.sync()
        self._thread = threading.Thread(target=self._serve, name="desktopd-clipboard", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ public (any thread)
    def _submit(self, job: Job, timeout: float) -> str | None:
        if not self._thread.is_alive():
            raise DisplayUnavailable("clipboard connection lost")
        future: Future[str | None] = Future()
        self._jobs.put((job, future))
        os.write(self._wake_w, b"x")
        try:
            return future.result(timeout=timeout)
        except TimeoutError:
            future.cancel()
            raise X11Error("clipboard: the X server did not answer in time") from None

    def set_text(self, text: str) -> None:
        data = text.encode("utf-8")
        if len(data) > MAX_TEXT_BYTES:
            raise ValueError(f"text: {len(data)} bytes is more than the clipboard limit of "
                             f"{MAX_TEXT_BYTES}")
        self._submit(lambda: self._own(data), timeout=5.0)

    def clear(self) -> None:
        """Nobody owns CLIPBOARD or PRIMARY afterwards, whoever did: readers get nothing."""
        self._submit(self._disown, timeout=5.0)

    def get_text(self, timeout: float = 2.0) -> str | None:
        return self._submit(lambda: self._read(timeout), timeout=timeout + 2.0)

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        try:
            os.write(self._wake_w, b"q")
        except OSError:
            pass
        self._thread.join(timeout=5)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self._dpy.close()
        except Exception as exc:
            log.debug("clipboard close: %s", exc)

    # ------------------------------------------------------------------ the serving thread
    def _serve(self) -> None:
        try:
            while not self._closing:
                self._drain_events()
                self._expire_incr()
                readable, _, _ = select.select([self._dpy.fileno(), self._wake_r], [], [],
                                               INCR_IDLE_S)
                if self._wake_r in readable:
                    os.read(self._wake_r, 512)
                while not self._jobs.empty():
                    job, future = self._jobs.get_nowait()
                    if not future.set_running_or_notify_cancel():
                        continue
                    try:
                        future.set_result(job())
                    except BaseException as exc:
                        future.set_exception(exc)
        except Exception as exc:  # server gone: the owner (X11Desktop) reconnects on next use
            if not self._closing:
                log.warning("clipboard connection ended: %s", exc)
        finally:
            while not self._jobs.empty():
                _, future = self._jobs.get_nowait()
                if future.set_running_or_notify_cancel():
                    future.set_exception(DisplayUnavailable("clipboard connection lost"))

    def _drain_events(self, until: Callable[[Event], bool] | None = None) -> Event | None:
        """Handle queued events; return the first one ``until`` accepts (left unhandled)."""
        while self._dpy.pending_events():
            event = self._dpy.next_event()
            if until is not None and until(event):
                return event
            try:
                self._handle(event)
            except Exception as exc:
                if is_connection_loss(exc):
                    raise
                log.warning("clipboard: failed to handle %s: %s", type(event).__name__, exc)
        return None

    def _wait_for(self, until: Callable[[Event], bool], timeout: float) -> Event | None:
        deadline = time.monotonic() + timeout
        while True:
            event = self._drain_events(until)
            if event is not None:
                return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            select.select([self._dpy.fileno()], [], [], remaining)

    def _handle(self, event: Event) -> None:
        if event.type == X.SelectionRequest:
            self._answer(event)
        elif event.type == X.SelectionClear and event.atom == self.CLIPBOARD:
            self._text = None  # someone else owns it now
        elif event.type == X.PropertyNotify and event.state == X.PropertyDelete:
            transfer = self._incr.get((event.window.id, event.atom))
            if transfer is not None:
                self._send_chunk(event.window.id, event.atom, transfer)

    def _start_incr(self, requestor: Window, prop: int, kind: int, data: bytes) -> None:
        """Announce an INCR transfer; chunks follow each time the requestor deletes the property."""
        requestor.change_attributes(event_mask=X.PropertyChangeMask)  # our selection on its window
        requestor.change_property(prop, self.INCR, 32, [len(data)])
        self._incr[(requestor.id, prop)] = {"window": requestor, "type": kind, "data": data,
                                            "offset": 0, "touched": time.monotonic()}

    def _send_chunk(self, window_id: int, prop: int, transfer: IncrTransfer) -> None:
        offset = transfer["offset"]
        chunk = transfer["data"][offset:offset + INCR_CHUNK]
        window = transfer["window"]
        window.change_property(prop, transfer["type"], 8, chunk)
        transfer["offset"] = offset + len(chunk)
        transfer["touched"] = time.monotonic()
        if not chunk:  # the zero-length chunk ends the transfer
            del self._incr[(window_id, prop)]
            window.change_attributes(event_mask=X.NoEventMask)
        self._dpy.flush()

    def _expire_incr(self) -> None:
        now = time.monotonic()
        for key, transfer in list(self._incr.items()):
            if now - transfer["touched"] > INCR_IDLE_S:
                log.warning("clipboard: incremental transfer to %#x abandoned", key[0])
                del self._incr[key]

    def _answer(self, request: Event) -> None:
        prop = request.property or request.target  # obsolete clients send None
        requestor = request.requestor
        ok = self._text is not None and request.selection == self.CLIPBOARD
        if ok:
            target = request.target
            try:
                if target == self.TARGETS:
                    requestor.change_property(prop, Xatom.ATOM, 32, [
                        self.TARGETS, self.UTF8, Xatom.STRING, self.TEXT, self.TIMESTAMP])
                elif target in (self.UTF8, self.TEXT, Xatom.STRING):
                    kind = Xatom.STRING if target == Xatom.STRING else self.UTF8
                    data = self._text if kind == self.UTF8 else \
                        self._text.decode("utf-8").encode("latin-1", "replace")
                    if len(data) > INCR_CHUNK:
                        self._start_incr(requestor, prop, kind, data)
                    else:
                        requestor.change_property(prop, kind, 8, data)
                elif target == self.TIMESTAMP:
                    requestor.change_property(prop, Xatom.INTEGER, 32, [self._owned_since])
                else:
                    ok = False
            except xerror.XError:
                ok = False
        reply = xevent.SelectionNotify(time=request.time, requestor=requestor,
                                       selection=request.selection, target=request.target,
                                       property=prop if ok else X.NONE)
        requestor.send_event(reply, event_mask=0)
        self._dpy.flush()

    def _own(self, data: bytes) -> None:
        self._text = data
        self._owned_since = self._server_time()
        self._window.set_selection_owner(self.CLIPBOARD, self._owned_since)
        owner = self._dpy.get_selection_owner(self.CLIPBOARD)
        if isinstance(owner, int) or owner.id != self._window.id:
            self._text = None
            raise X11Error("clipboard: could not take ownership of CLIPBOARD")

    def _disown(self) -> None:
        self._text = None
        when = self._server_time()
        for selection in (self.CLIPBOARD, Xatom.PRIMARY):
            # SetSelectionOwner(None) is allowed to any client: it empties the selection.
            xrequest.SetSelectionOwner(display=self._dpy.display, window=X.NONE,
                                       selection=selection, time=when)
        self._dpy.sync()

    def _server_time(self) -> int:
        """A real server timestamp (ICCCM: never own a selection at CurrentTime): append nothing
        to a property of our window and read the time off the PropertyNotify."""
        self._window.change_property(self.PROPERTY, Xatom.STRING, 8, b"", mode=X.PropModeAppend)
        self._dpy.flush()
        event = self._wait_for(lambda e: e.type == X.PropertyNotify
                               and e.window.id == self._window.id, 2.0)
        return event.time if event is not None else X.CurrentTime

    def _read(self, timeout: float) -> str | None:
        # Ask the server who owns it (a SelectionClear may still be in flight to us).
        owner = self._dpy.get_selection_owner(self.CLIPBOARD)
        owner_id = owner if isinstance(owner, int) else owner.id
        if owner_id == X.NONE:
            self._text = None
            return None
        if owner_id == self._window.id and self._text is not None:
            return self._text.decode("utf-8")  # ours: no conversion through the server
        self._text = None
        for target in (self.UTF8, Xatom.STRING):
            data = self._convert(target, timeout)
            if data is not None:
                return data.decode("utf-8" if target == self.UTF8 else "latin-1", "replace")
        return None

    def _convert(self, target: int, timeout: float) -> bytes | None:
        self._window.delete_property(self.PROPERTY)
        self._window.convert_selection(self.CLIPBOARD, target, self.PROPERTY, X.CurrentTime)
        self._dpy.flush()
        notify = self._wait_for(lambda e: e.type == X.SelectionNotify
                                and e.selection == self.CLIPBOARD, timeout)
        log.debug("clipboard: SelectionNotify %s", notify)
        if notify is None or notify.property == X.NONE:
            return None
        prop = self._window.get_full_property(self.PROPERTY, X.AnyPropertyType)
        self._window.delete_property(self.PROPERTY)
        self._dpy.flush()
        if prop is None:
            return None
        if prop.property_type == self.INCR:
            return self._read_incr(timeout)
        return bytes(prop.value)

    def _read_incr(self, timeout: float) -> bytes | None:
        """ICCCM INCR: the owner writes chunks; each delete of ours asks for the next one."""
        chunks: list[bytes] = []
        deadline = time.monotonic() + max(timeout, INCR_CHUNK_WAIT_S) * 10
        while time.monotonic() < deadline:
            event = self._wait_for(lambda e: e.type == X.PropertyNotify
                                   and e.atom == self.PROPERTY and e.state == X.PropertyNewValue,
                                   INCR_CHUNK_WAIT_S)
            log.debug("clipboard: INCR chunk event %s", event)
            if event is None:
                return None
            prop = self._window.get_full_property(self.PROPERTY, X.AnyPropertyType)
            self._window.delete_property(self.PROPERTY)
            self._dpy.flush()
            if prop is None or not prop.value:
                return b"".join(chunks)
            chunks.append(bytes(prop.value))
        return None
