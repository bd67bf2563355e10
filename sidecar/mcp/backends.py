"""The two services the MCP tools call: the sidecar (browser) and desktopd (the desktop), over
HTTP with the bearer token, every call bounded by a timeout. A 4xx/5xx becomes a ToolError
carrying the service's own message (a stale ref's 409 tells the agent to take a new snapshot)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from mcp.server.fastmcp.exceptions import ToolError

# Long enough for an act that waits or a /playwright run at its longest; each call passes its own.
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Backends:
    # A callable when the address is only known once serving (the sidecar's own /mcp, --port 0).
    sidecar_url: str | Callable[[], str] = "http://127.0.0.1:8122"
    desktopd_url: str = "http://127.0.0.1:8080"
    token: str | None = field(default=None, repr=False)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def sidecar(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                      body: dict[str, Any] | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> Reply:
        base = self.sidecar_url() if callable(self.sidecar_url) else self.sidecar_url
        return await self._call(base, method, path, params, body, timeout)

    async def desktopd(self, method: str, path: str, *, params: dict[str, Any] | None = None,
                       body: dict[str, Any] | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> Reply:
        return await self._call(self.desktopd_url.rstrip("/") + "/api/v1", method, path, params, body,
                                timeout)

    async def _call(self, base: str, method: str, path: str, params: dict[str, Any] | None,
                    body: dict[str, Any] | None, timeout: float) -> Reply:
        query = {key: _query_value(value) for key, value in (params or {}).items() if value is not None}
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
                async with http.request(method, base.rstrip("/") + path, params=query, json=body,
                                        headers=self._headers()) as response:
                    reply = Reply(response.status, response.headers.get("Content-Type", ""),
                                  await response.read(), dict(response.headers))
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ToolError(f"{method} {path}: the service did not answer ({exc!r})") from None
        if reply.status >= 400:
            raise ToolError(f"{method} {path} failed with {reply.status}: {reply.error_text()}")
        return reply


def _query_value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    data: bytes
    headers: dict[str, str]

    def json(self) -> Any:
        return json.loads(self.data)

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def error_text(self) -> str:
        """The JSON error's detail (and field), else the body's start."""
        try:
            body = self.json()
        except ValueError:
            return self.text()[:2000]
        if isinstance(body, dict) and "detail" in body:
            detail = body["detail"] if isinstance(body["detail"], str) else json.dumps(body["detail"])
            where = f" (field {body['field']})" if body.get("field") else ""
            # /vision/click's 404/409: what is on the screen instead, for the next try.
            seen = f"; candidates: {json.dumps(body['candidates'])}" if body.get("candidates") else ""
            return f"{body.get('error', 'error')}: {detail}{where}{seen}"
        return self.text()[:2000]
