"""Node ids that say where a node came from: ``atspi:<bus>:<object>`` for an AT-SPI object
(its unique bus name without the colon, its object path shortened) and ``web:<tab>:<node>`` for a
node of the browser's /layout. An AT-SPI id stays valid as long as the object lives."""

from __future__ import annotations

ACCESSIBLE_PREFIX = "/org/a11y/atspi/accessible/"


def atspi_id(bus_name: str, path: str) -> str:
    tail = path[len(ACCESSIBLE_PREFIX):] if path.startswith(ACCESSIBLE_PREFIX) else path.replace("/", "~")
    return f"atspi:{bus_name.lstrip(':')}:{tail}"


def web_id(tab_id: str, node_id: str) -> str:
    return f"web:{tab_id}:{node_id}"


def parse_atspi_id(node_id: str) -> tuple[str, str] | None:
    """(bus name, object path) of an atspi: id, None when it is not one."""
    source, _, rest = node_id.partition(":")
    bus, _, tail = rest.partition(":")
    if source != "atspi" or not bus or not tail:
        return None
    if not all(part.isdigit() for part in bus.split(".")) or bus.count(".") != 1:
        return None
    if not all(c.isalnum() or c in "_~" for c in tail):
        return None
    if tail.startswith("~"):
        path = tail.replace("~", "/")
    else:
        path = ACCESSIBLE_PREFIX + tail
    if not all(c.isalnum() or c in "/_" for c in path) or "//" in path or path.endswith("/"):
        return None
    return ":" + bus, path
