"""The compositor's globals (wl_registry) and binding them at the versions desktopd speaks."""

from __future__ import annotations

from dataclasses import dataclass

from .wire import Args, Connection, Handler, Proxy, Reader

GET_REGISTRY, REGISTRY_BIND = 1, 0
EVENT_GLOBAL, EVENT_GLOBAL_REMOVE = 0, 1


class MissingProtocol(Exception):
    """The compositor does not offer a global desktopd needs."""


@dataclass(frozen=True)
class Global:
    name: int
    interface: str
    version: int


class Registry:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.globals: dict[int, Global] = {}
        self._proxy = conn.new_proxy("wl_registry", self._event)
        conn.display.request(GET_REGISTRY, Args().uint(self._proxy.id))
        conn.roundtrip()  # every global is announced before the sync's answer

    def _event(self, opcode: int, reader: Reader) -> None:
        if opcode == EVENT_GLOBAL:
            name, interface, version = reader.uint(), reader.string() or "", reader.uint()
            self.globals[name] = Global(name, interface, version)
        elif opcode == EVENT_GLOBAL_REMOVE:
            self.globals.pop(reader.uint(), None)

    def find(self, interface: str) -> list[Global]:
        return [g for g in self.globals.values() if g.interface == interface]

    def has(self, interface: str) -> bool:
        return bool(self.find(interface))

    def bind(self, interface: str, max_version: int, on_event: Handler | None = None,
             which: Global | None = None) -> tuple[Proxy, int]:
        """Bind ``interface`` (its first global unless ``which``); returns it and the version."""
        found = which or next(iter(self.find(interface)), None)
        if found is None:
            raise MissingProtocol(f"the compositor offers no {interface}")
        version = min(found.version, max_version)
        proxy = self.conn.new_proxy(interface, on_event)
        self._proxy.request(REGISTRY_BIND, Args().uint(found.name).string(interface)
                            .uint(version).uint(proxy.id))
        return proxy, version
