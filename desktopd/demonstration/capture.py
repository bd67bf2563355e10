"""The desktop's input as the X server sees it, read with the X RECORD extension on connections
of its own (a reader thread; desktopd's X thread is never held).

Two kinds of data are recorded, in the server's order: the device events (key and button
presses and releases, motion: with the server's timestamp, the pointer and the modifier state)
and the XTEST FakeInput requests that make them. Every input to Xvfb is an XTEST request (a VNC
server such as x11vnc injects the person's input that way, and desktopd the agent's), and the
server processes a FakeInput request by generating its event at once, so each device event
follows the request that made it in the recorded stream. The request's record carries its
client's resource-id base: when it is desktopd's own connection's, the event is the agent's.
That is exact (no time windows to guess), unlike an XInput2 device id: x11vnc and desktopd both
inject through the same "Virtual core XTEST" devices.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Callable

from Xlib import X
from Xlib.ext import record
from Xlib.protocol import rq

from desktopd.x11.connection import open_display
from desktopd.x11.errors import X11Error

from .coalesce import InputEvent, Kind, Source

log = logging.getLogger(__name__)
XTEST_FAKE_INPUT = 2     # the XTEST minor opcode of FakeInput
CHANGE_KEYBOARD_MAPPING = 100   # the core request that maps keysyms onto keycodes
KINDS: dict[int, tuple[Kind, bool]] = {X.KeyPress: ("key", True), X.KeyRelease: ("key", False), X.ButtonPress: ("button", True),
         X.ButtonRelease: ("button", False), X.MotionNotify: ("motion", False)}


class InputCapture:
    """Records the display's input until ``close``; ``on_event`` gets each InputEvent on the
    reader thread, ``on_end`` the reason once the recording ended (None: closed)."""

    def __init__(self, display_name: str, own_id_bases: Callable[[], frozenset[int]],
                 on_event: Callable[[InputEvent], None], on_end: Callable[[str | None], None]) -> None:
        self._own = own_id_bases
        self._on_event, self._on_end = on_event, on_end
        self._control = open_display(display_name, "display for input capture")
        try:
            if not self._control.has_extension("RECORD"):
                raise X11Error(f"display {display_name} has no RECORD extension: input cannot be captured")
            if not self._control.has_extension("XTEST"):
                raise X11Error(f"display {display_name} has no XTEST extension")
            self._reader = open_display(display_name, "display for input capture")
        except BaseException:
            self._control.close()
            raise
        xtest = self._control.query_extension("XTEST").major_opcode
        self._context = self._control.record_create_context(0, [record.AllClients], [{
            "core_requests": (CHANGE_KEYBOARD_MAPPING, CHANGE_KEYBOARD_MAPPING), "core_replies": (0, 0),
            "ext_requests": (xtest, xtest, XTEST_FAKE_INPUT, XTEST_FAKE_INPUT), "ext_replies": (0, 0, 0, 0),
            "delivered_events": (0, 0), "device_events": (X.KeyPress, X.MotionNotify),
            "errors": (0, 0), "client_started": False, "client_died": False}])
        info = self._control.display.info
        first, count = info.min_keycode, info.max_keycode - info.min_keycode + 1
        self._keymap: dict[int, tuple[int, ...]] = {
            first + i: tuple(row) for i, row in enumerate(self._control.get_keyboard_mapping(first, count))}
        self._control.sync()
        self._injector: int | None = None      # the id base of the last FakeInput's client
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="desktopd-input-capture", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        reason: str | None = None
        try:
            self._reader.record_enable_context(self._context, self._on_data)
            # python-xlib may also return here when the server closed the connection while the
            # context's reply was awaited: unless we are closing, that is the connection ending.
            if not self._closing:
                reason = "the input capture's X connection ended: the X server closed it"
        except Exception as exc:   # python-xlib raises several kinds when the connection ends
            reason = None if self._closing else f"the input capture's X connection ended: {type(exc).__name__}: {exc}"
        if reason:
            log.warning("%s", reason)
        self._on_end(reason)

    def _on_data(self, reply) -> None:   # noqa: ANN001 - python-xlib's reply object
        if reply.category == record.FromClient:
            if reply.data[:1] == bytes([CHANGE_KEYBOARD_MAPPING]):
                self._remap(reply.data, ">" if reply.client_swapped else "<")
            else:
                self._injector = reply.id_base
            return
        if reply.category != record.FromServer:
            return
        data = reply.data
        while len(data) >= 32:
            event, data = rq.EventField(None).parse_binary_value(data, self._reader.display, None, None)
            kind = KINDS.get(event.type)
            if kind is None:
                continue
            source: Source = "agent" if self._injector in self._own() else "person"
            row = self._row(event.detail) if kind[0] == "key" and kind[1] else ()
            self._on_event(InputEvent(kind[0], kind[1], event.detail, event.root_x, event.root_y, event.state,
                                      event.time, source, row))

    def _row(self, keycode: int) -> tuple[int, ...]:
        return self._keymap.get(keycode, ())

    def _remap(self, data: bytes, order: str) -> None:
        """A ChangeKeyboardMapping request, applied where it lies in the stream: the keymap of
        each later key is the one in force when it was pressed (xdotool and x11vnc map a spare
        keycode for a character the layout lacks, press it and map it back at once)."""
        count, first, per = data[1], data[4], data[5]
        if per == 0 or len(data) < 8 + 4 * count * per:
            return
        syms = struct.unpack_from(f"{order}{count * per}I", data, 8)
        for i in range(count):
            self._keymap[first + i] = tuple(syms[i * per:(i + 1) * per])

    def close(self) -> None:
        self._closing = True
        try:
            self._control.record_disable_context(self._context)
            self._control.sync()
        except Exception as exc:   # the server went away: the reader has ended already
            log.debug("disabling the input capture failed: %s", exc)
        self._thread.join(timeout=5)
        for dpy in (self._control, self._reader):
            try:
                if dpy is self._control:
                    dpy.record_free_context(self._context)
                dpy.close()
            except Exception as exc:   # the socket is already shut
                log.debug("closing an input capture connection failed: %s", exc)

