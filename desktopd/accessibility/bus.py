"""The one owner of desktopd's connection to the accessibility (AT-SPI) bus.

Opened on first use, never at import: the bus address comes from AT_SPI_BUS_ADDRESS, else from the
session bus's org.a11y.Bus service (what at-spi-bus-launcher registers). Every call is bounded;
a dead connection is dropped and reopened by the next call. D-Bus errors become three domain
errors that the HTTP layer maps in one place.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

from dbus_next import Message, MessageType
from dbus_next.aio import MessageBus

from httpapi.bounded import within

log = logging.getLogger(__name__)

REGISTRY = "org.a11y.atspi.Registry"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
# D-Bus errors that mean the object or its application no longer exists.
GONE_ERRORS = frozenset({
    "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.UnknownObject",
    "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected",
})

# D-Bus values as dbus_next hands them over (a reply's body, a struct in it): each value's type
# is what the member's signature says, known only at run time, so readers unpack them by it.
DBusValues = list[Any]

MAX_IN_FLIGHT = 64


class BusUnavailable(Exception):
    """No accessibility bus: not started, or not reachable."""


class ObjectGone(Exception):
    """The accessible object (or its application) does not exist (any more)."""


class CallFailed(Exception):
    """A D-Bus call answered with an error other than 'gone'."""


class NoSuchInterface(CallFailed):
    """The object exists but does not implement that interface (e.g. it has no actions)."""


class CallTimedOut(Exception):
    """An application did not answer within the time it was given."""


async def close_bus(bus: MessageBus) -> None:
    """Disconnect and release the socket: dbus-next 0.2.3 only shuts it down and leaves the
    socket and its file object to the garbage collector."""
    if bus.connected:
        bus.disconnect()
        try:
            await within(bus.wait_for_disconnect(), 5)
        except Exception:  # the error it disconnected with: we are closing anyway
            pass
    for name in ("_stream", "_sock"):
        resource = getattr(bus, name, None)
        if resource is not None:
            resource.close()


async def open_bus(address: str) -> MessageBus:
    """A connected MessageBus; on failure its socket is closed too (dbus-next leaves it open)."""
    # dbus-next's constructor connects and, when that fails, drops its socket unclosed: answer
    # the common case (a unix socket file that is not there) before it creates one.
    paths = [part.split("path=", 1)[1].split(",", 1)[0] for part in address.split(";")
             if part.startswith("unix:path=")]
    if paths and len(paths) == len(address.split(";")) and not any(os.path.exists(p) for p in paths):
        raise FileNotFoundError(f"no D-Bus socket at {', '.join(paths)}")
    bus = MessageBus(bus_address=address)
    try:
        return await bus.connect()
    except BaseException:
        await close_bus(bus)
        raise


async def accessibility_bus_address(session_address: str) -> str | None:
    """What at-spi-bus-launcher registered on the session bus (org.a11y.Bus), None without it."""
    session = await open_bus(session_address)
    try:
        reply = await session.call(Message(destination="org.a11y.Bus", path="/org/a11y/bus",
                                           interface="org.a11y.Bus", member="GetAddress"))
    finally:
        await close_bus(session)
    return None if reply.message_type == MessageType.ERROR else reply.body[0]


class AtspiBus:
    def __init__(self, env: Mapping[str, str] | None = None, *, connect_timeout: float = 5.0) -> None:
        self._env = os.environ if env is None else env
        self._connect_timeout = connect_timeout
        self._bus: MessageBus | None = None
        self._lock = asyncio.Lock()
        # dbus-next 0.2.3's writer fails the connection on EAGAIN when its socket buffer fills:
        # bound the calls in flight (the pipelining gain comes well before this many).
        self._in_flight = asyncio.Semaphore(MAX_IN_FLIGHT)
        self.address: str | None = None
        self.last_error: str | None = None

    async def _find_address(self) -> str:
        explicit = self._env.get("AT_SPI_BUS_ADDRESS")
        if explicit:
            return explicit
        session_address = self._env.get("DBUS_SESSION_BUS_ADDRESS")
        if not session_address:
            raise BusUnavailable("no session D-Bus (DBUS_SESSION_BUS_ADDRESS is not set) and no "
                                 "AT_SPI_BUS_ADDRESS")
        address = await accessibility_bus_address(session_address)
        if address is None:
            raise BusUnavailable("the session bus has no accessibility bus (org.a11y.Bus: is "
                                 "at-spi2-core's at-spi-bus-launcher running?)")
        return address

    async def _open(self) -> MessageBus:
        address = await self._find_address()
        bus = await open_bus(address)
        # Toolkits (atk-bridge) build their org.a11y.atspi.Cache only once some client listens for
        # events, as screen readers do: register one listener so GetItems has something to give.
        reply = await bus.call(Message(
            destination=REGISTRY, path="/org/a11y/atspi/registry", interface="org.a11y.atspi.Registry",
            member="RegisterEvent", signature="sass", body=["object:", [], ""]))
        if reply.message_type == MessageType.ERROR:
            await close_bus(bus)
            raise BusUnavailable(f"the accessibility registry does not answer: {reply.error_name}")
        self.address = address
        return bus

    async def connection(self) -> MessageBus:
        async with self._lock:
            if self._bus is not None and self._bus.connected:
                return self._bus
            self._bus = None
            try:
                self._bus = await within(self._open(), self._connect_timeout)
            except BusUnavailable as exc:
                self.last_error = str(exc)
                raise
            except (OSError, EOFError, asyncio.TimeoutError, ValueError) as exc:
                self.last_error = f"cannot connect to the accessibility bus: {type(exc).__name__}: {exc}"
                raise BusUnavailable(self.last_error) from None
            except Exception as exc:  # dbus-next raises its own types for auth/handshake failures
                self.last_error = f"cannot connect to the accessibility bus: {type(exc).__name__}: {exc}"
                raise BusUnavailable(self.last_error) from None
            self.last_error = None
            return self._bus

    async def call(self, destination: str, path: str, interface: str, member: str,
                   signature: str = "", body: Sequence[object] = (), *, timeout: float | None = 5.0) -> DBusValues:
        """One method call; its reply's body. ObjectGone / CallFailed / CallTimedOut otherwise.
        timeout=None: the caller bounds it (a batch under one deadline cancels what is left)."""
        bus = await self.connection()
        message = Message(destination=destination, path=path, interface=interface, member=member,
                          signature=signature, body=list(body))
        try:
            async with self._in_flight:
                reply = await (bus.call(message) if timeout is None else within(bus.call(message), timeout))
        except asyncio.TimeoutError:
            raise CallTimedOut(f"{destination} did not answer {member} within {timeout} s") from None
        except Exception as exc:  # dbus-next fails pending calls with the transport's error
            if not bus.connected:
                raise BusUnavailable(f"the accessibility bus connection broke: {exc}") from None
            raise
        if reply.message_type == MessageType.ERROR:
            detail = reply.body[0] if reply.body else ""
            if reply.error_name in GONE_ERRORS:
                raise ObjectGone(f"{reply.error_name}: {detail}".strip())
            if reply.error_name == "org.freedesktop.DBus.Error.UnknownMethod":
                raise NoSuchInterface(f"{interface}: {detail}".strip())
            raise CallFailed(f"{reply.error_name}: {detail}".strip())
        return reply.body

    async def close(self) -> None:
        async with self._lock:
            if self._bus is not None:
                await close_bus(self._bus)
                self._bus = None
