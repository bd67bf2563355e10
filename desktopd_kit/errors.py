"""The one exception of the kit: every failed call, HTTP or transport, is a DesktopError."""

from __future__ import annotations

import json

class DesktopError(Exception):
    """A call to desktopd or the sidecar that did not succeed.

    ``status`` is the HTTP status (None when no answer came: ``code`` is then ``timeout`` or
    ``connection_error``); ``code``, ``message`` and ``field`` are the JSON error's ``error``,
    ``detail`` and ``field``; ``body`` is the whole decoded error body (or the raw text).
    """

    def __init__(self, status: int | None, code: str, message: str, field: str | None = None,
                 body: object = None, *, method: str = "", url: str = "") -> None:
        where = f" ({method} {url})" if method else ""
        super().__init__(f"{status or '-'} {code}: {message}{where}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.body = body
        self.method = method
        self.url = url

    @property
    def retryable(self) -> bool:
        """No answer, or an answer that says "later" (502/503/504): worth asking again when the
        call is idempotent."""
        return self.status is None or self.status in (502, 503, 504)

    @classmethod
    def from_reply(cls, status: int, body: bytes, *, method: str = "", url: str = "") -> DesktopError:
        """The API's JSON error (``{"error","detail","field"}``), or whatever text came instead."""
        try:
            decoded = json.loads(body) if body else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            decoded = body.decode("utf-8", "replace")
        if isinstance(decoded, dict) and "error" in decoded:
            detail = decoded.get("detail")
            message = detail if isinstance(detail, str) else json.dumps(detail)
            return cls(status, str(decoded["error"]), message, decoded.get("field"), decoded,
                       method=method, url=url)
        return cls(status, f"http_{status}", str(decoded or ""), None, decoded, method=method, url=url)
