"""What the sync and async clients share: a call described as data (Call), the answer as data
(Reply), and the decoding of one into a result. The clients only move bytes."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from .download import Saved
from .errors import DesktopError

T = TypeVar("T")
Service = Literal["desktopd", "sidecar"]
JSON = object   # a decoded JSON value (dict, list, str, int, float, bool or None)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes
    saved: Saved | None = None          # a download's file (Call.save_to), its body left empty


@dataclass(frozen=True)
class Call(Generic[T]):
    """One HTTP request to one of the two daemons, and how to decode its answer."""

    service: Service
    method: str
    path: str
    decode: Callable[[Reply], T]
    params: Mapping[str, str] = field(default_factory=dict)
    json: JSON = None
    extra_timeout: float = 0.0          # a call that waits on purpose (execute, navigate) waits longer
    ok_statuses: tuple[int, ...] = (200, 201, 204)
    save_to: Path | None = None         # a successful answer's body is streamed into this file

    def encoded(self) -> bytes | None:
        """The JSON body as both clients send it (None: no body)."""
        return None if self.json is None else json.dumps(self.json, allow_nan=False).encode()

    def saves(self, status: int) -> bool:
        return self.save_to is not None and status == 200

    @property
    def idempotent(self) -> bool:
        """Only reads are repeated after a failure (a screenshot is a GET too)."""
        return self.method in ("GET", "HEAD")

    def finish(self, reply: Reply, url: str) -> T:
        if reply.status not in self.ok_statuses:
            raise DesktopError.from_reply(reply.status, reply.body, method=self.method, url=url)
        return self.decode(reply)


def query(**values: object) -> dict[str, str]:
    """Query parameters: None left out, booleans as the APIs spell them."""
    out = {}
    for name, value in values.items():
        if value is None:
            continue
        out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def body(**values: object) -> dict[str, object]:
    """A JSON body without the fields left at None (the server's defaults apply)."""
    return {name: value for name, value in values.items() if value is not None}


def json_reply(reply: Reply) -> Any:
    """The decoded body, as untyped as json.loads' (callers take it as the shape its endpoint
    documents: a dict, a list)."""
    if not reply.body:
        return None
    try:
        return json.loads(reply.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DesktopError(reply.status, "bad_reply", f"expected JSON: {exc}", body=reply.body) from None


def member_reply(name: str) -> Callable[[Reply], Any]:
    """A decoder of one member of the JSON answer."""
    return lambda reply: json_reply(reply)[name]


def text_reply(reply: Reply) -> str:
    return reply.body.decode("utf-8", errors="replace")


def path_segment(value: object) -> str:
    """An id placed in a path: refused when it would change the path."""
    text = str(value)
    if not text or "/" in text or text in (".", ".."):
        raise DesktopError(None, "invalid_argument", f"not a valid id: {value!r}")
    return text


def no_content(reply: Reply) -> None:
    return None


def saved_file(reply: Reply) -> Saved:
    assert reply.saved is not None, "a Call with save_to"
    return reply.saved
