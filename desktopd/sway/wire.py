"""A small Wayland client: the wire protocol over the compositor's Unix socket, in-process.

Debian bookworm packages no Python Wayland binding (pywayland is not in it), and the few
interfaces desktopd needs are small, so requests are encoded here by hand from the protocol XMLs'
opcodes (see protocols.py). One ``Connection`` is used from one thread at a time, except that
``send`` is locked so a dispatching thread and a requesting thread may share it.

Wire format: every message is ``object id (u32), size << 16 | opcode (u32)`` and its arguments,
each a multiple of 4 bytes; file descriptors travel beside the bytes as SCM_RIGHTS.
"""

from __future__ import annotations

import array
import os
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

HEADER = struct.Struct("=II")
DISPLAY_ID = 1
SERVER_ID_BASE = 0xFF000000   # ids the compositor allocates start here
MAX_FDS = 28  # libwayland's own bound on descriptors in one message


class WaylandError(Exception):
    """A protocol error the compositor reported, or a message we could not understand."""


class ConnectionLost(WaylandError):
    """The compositor closed the socket (or was never there)."""


def fixed(value: float) -> int:
    """wl_fixed_t: a signed 24.8 fixed-point number."""
    return round(value * 256)


class Args:
    """Builds a request's argument bytes and descriptors, in order."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.fds: list[int] = []

    def uint(self, value: int) -> Args:
        self.data += struct.pack("=I", value & 0xFFFFFFFF)
        return self

    def sint(self, value: int) -> Args:
        self.data += struct.pack("=i", value)
        return self

    def string(self, value: str | None) -> Args:
        if value is None:
            return self.uint(0)
        raw = value.encode() + b"\0"
        self.uint(len(raw))
        self.data += raw + b"\0" * (-len(raw) % 4)
        return self

    def fd(self, value: int) -> Args:
        self.fds.append(value)
        return self


class Reader:
    """Reads an event's arguments in order."""

    def __init__(self, payload: bytes, fds: deque[int]) -> None:
        self._payload = payload
        self._at = 0
        self._fds = fds

    def uint(self) -> int:
        (value,) = struct.unpack_from("=I", self._payload, self._at)
        self._at += 4
        return int(value)

    def sint(self) -> int:
        (value,) = struct.unpack_from("=i", self._payload, self._at)
        self._at += 4
        return int(value)

    def string(self) -> str | None:
        size = self.uint()
        if size == 0:
            return None
        raw = self._payload[self._at:self._at + size - 1]
        self._at += size + (-size % 4)
        return raw.decode("utf-8", "replace")

    def fd(self) -> int:
        if not self._fds:
            raise WaylandError("an event carries a file descriptor that did not arrive")
        return self._fds.popleft()


Handler = Callable[[int, Reader], None]


@dataclass
class Proxy:
    """One protocol object on our side: its id, interface name and event handler."""

    conn: Connection
    id: int
    interface: str
    on_event: Handler | None = None
    alive: bool = field(default=True)

    def request(self, opcode: int, args: Args | None = None) -> None:
        self.conn.send(self.id, opcode, args or Args())


class Connection:
    def __init__(self, path: str) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            self._sock.connect(path)
        except OSError as exc:
            self._sock.close()
            raise ConnectionLost(f"cannot connect to the Wayland socket {path}: {exc}") from None
        self._objects: dict[int, Proxy] = {}
        self._free_ids: list[int] = []
        self._next_id = DISPLAY_ID + 1
        self._buffer = b""
        self._fds: deque[int] = deque()
        self._send_lock = threading.Lock()
        self.closed = False
        self.display = Proxy(self, DISPLAY_ID, "wl_display", self._display_event)
        self._objects[DISPLAY_ID] = self.display
        self.error: str | None = None

    def fileno(self) -> int:
        return self._sock.fileno()

    # ------------------------------------------------------------------ objects
    def new_proxy(self, interface: str, on_event: Handler | None = None) -> Proxy:
        with self._send_lock:
            if self._free_ids:
                new_id = self._free_ids.pop()
            else:
                new_id, self._next_id = self._next_id, self._next_id + 1
            proxy = Proxy(self, new_id, interface, on_event)
            self._objects[new_id] = proxy
        return proxy

    def adopt(self, new_id: int, interface: str, on_event: Handler | None = None) -> Proxy:
        """An object the compositor created (a new_id in an event)."""
        proxy = Proxy(self, new_id, interface, on_event)
        with self._send_lock:
            self._objects[new_id] = proxy
        return proxy

    def proxy(self, object_id: int) -> Proxy | None:
        """The object an event names (None when we do not know it)."""
        return self._objects.get(object_id)

    def forget(self, proxy: Proxy) -> None:
        """After a destructor request: events still in flight for it are dropped."""
        proxy.alive = False
        if proxy.id >= SERVER_ID_BASE:   # no delete_id comes for the compositor's own ids
            with self._send_lock:
                self._objects.pop(proxy.id, None)

    def _display_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:  # error(object_id, code, message)
            obj, code, message = reader.uint(), reader.uint(), reader.string()
            interface = self._objects[obj].interface if obj in self._objects else "?"
            self.error = f"{interface}#{obj}: error {code}: {message}"
            raise WaylandError(self.error)
        if opcode == 1:  # delete_id(id): the compositor is done with it, the id can be reused
            gone = reader.uint()
            with self._send_lock:
                self._objects.pop(gone, None)
                if gone < SERVER_ID_BASE:
                    self._free_ids.append(gone)

    # ------------------------------------------------------------------ sending
    def send(self, object_id: int, opcode: int, args: Args) -> None:
        if self.closed:
            raise ConnectionLost("the Wayland connection is closed")
        size = HEADER.size + len(args.data)
        message = HEADER.pack(object_id, size << 16 | opcode) + bytes(args.data)
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", args.fds))] if args.fds else []
        with self._send_lock:
            try:
                sent = self._sock.sendmsg([message], ancillary)
                if sent < len(message):
                    self._sock.sendall(message[sent:])
            except OSError as exc:
                self.closed = True
                raise ConnectionLost(f"the compositor went away: {exc}") from None

    # ------------------------------------------------------------------ receiving
    def _receive(self, timeout: float | None) -> bool:
        """Read what the socket has (waiting up to ``timeout``); False when nothing came."""
        ready, _, _ = select.select([self._sock], [], [], timeout)
        if not ready:
            return False
        try:
            data, ancillary, _flags, _addr = self._sock.recvmsg(
                65536, socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize))
        except OSError as exc:
            self.closed = True
            raise ConnectionLost(f"the compositor went away: {exc}") from None
        if not data:
            self.closed = True
            raise ConnectionLost("the compositor closed the connection")
        for level, kind, raw in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(raw[:len(raw) - len(raw) % fds.itemsize])
                self._fds.extend(fds)
        self._buffer += data
        return True

    def _handle_buffered(self) -> int:
        handled = 0
        while len(self._buffer) >= HEADER.size:
            object_id, word = HEADER.unpack_from(self._buffer)
            size, opcode = word >> 16, word & 0xFFFF
            if size < HEADER.size:
                raise WaylandError(f"a message of {size} bytes cannot be")
            if len(self._buffer) < size:
                break
            payload, self._buffer = self._buffer[HEADER.size:size], self._buffer[size:]
            proxy = self._objects.get(object_id)
            handled += 1
            if proxy is None or proxy.on_event is None or not proxy.alive:
                self._discard_fds(proxy, opcode)
                continue
            proxy.on_event(opcode, Reader(payload, self._fds))
        return handled

    def _discard_fds(self, proxy: Proxy | None, opcode: int) -> None:
        # Of the events we ignore, only these carry descriptors: close them, never leak.
        carries_fd = proxy is not None and (proxy.interface, opcode) in FD_EVENTS
        if carries_fd and self._fds:
            os.close(self._fds.popleft())

    def dispatch(self, timeout: float | None = 0.0) -> int:
        """Handle the events that arrive within ``timeout`` seconds (0: only those waiting)."""
        handled = self._handle_buffered()
        if handled:
            return handled
        if self._receive(timeout):
            handled += self._handle_buffered()
            while self._receive(0):
                handled += self._handle_buffered()
        return handled

    def wait_for(self, done: Callable[[], bool], timeout: float, what: str) -> None:
        """Dispatch until ``done()`` (an event the caller's handler records), at most ``timeout``."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaylandError(f"the compositor did not answer ({what}) within {timeout:g} s")
            self.dispatch(left)

    def roundtrip(self, timeout: float = 5.0) -> None:
        """wl_display.sync: every request sent before has been handled by the compositor."""
        finished: list[bool] = []
        callback = self.new_proxy("wl_callback", lambda opcode, reader: finished.append(True))
        self.display.request(0, Args().uint(callback.id))
        self.wait_for(lambda: bool(finished), timeout, "sync")

    def close(self) -> None:
        self.closed = True
        try:
            self._sock.close()
        finally:
            while self._fds:
                os.close(self._fds.popleft())


# (interface, event opcode) pairs whose event carries a file descriptor.
FD_EVENTS = {("wl_keyboard", 0), ("zwlr_data_control_source_v1", 0)}


def socket_path(display: str | None = None) -> str:
    """$WAYLAND_DISPLAY (a name in $XDG_RUNTIME_DIR, or an absolute path), as libwayland finds it."""
    name = display or os.environ.get("WAYLAND_DISPLAY") or "wayland-0"
    if os.path.isabs(name):
        return name
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if not runtime:
        raise ConnectionLost("XDG_RUNTIME_DIR is not set: cannot find the Wayland socket")
    return os.path.join(runtime, name)
