"""The two services the MCP tools call, the sidecar (browser) and desktopd (the desktop), through
the kit's client (desktopd_kit.AsyncDesktop) with the bearer token, every call bounded by a
timeout and none repeated. A failed call becomes a ToolError carrying the service's own message
(a stale ref's 409 tells the agent to take a new snapshot)."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from mcp.server.fastmcp.exceptions import ToolError

from desktopd_kit import AsyncDesktop, DesktopError
from desktopd_kit.client import SidecarUrl
from desktopd_kit.retry import NO_RETRY

# A call's bound; one that waits on purpose (a /playwright run, a navigation, the vision loop)
# waits that much longer (the kit's extra_timeout).
DEFAULT_TIMEOUT_S = 60.0
T = TypeVar("T")


@dataclass(frozen=True)
class Backends:
    # A function when the address is only known once serving (the sidecar's own /mcp, --port 0).
    sidecar_url: SidecarUrl = "http://127.0.0.1:8122"
    desktopd_url: str = "http://127.0.0.1:8080"
    token: str | None = field(default=None, repr=False)
    client: AsyncDesktop = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # One token serves both services, as in the images.
        object.__setattr__(self, "client", AsyncDesktop(self.desktopd_url, self.token, self.sidecar_url,
                                                        DEFAULT_TIMEOUT_S, retry=NO_RETRY))

    async def close(self) -> None:
        await self.client.close()


async def answer(pending: Awaitable[T]) -> T:
    """The call's result, or its failure as the ToolError the agent reads."""
    try:
        return await pending
    except DesktopError as error:
        raise tool_error(error) from None


def tool_error(error: DesktopError) -> ToolError:
    where = f"{error.method} {urlsplit(error.url).path}"
    if error.status is None and error.code in ("timeout", "connection_error"):
        return ToolError(f"{where}: the service did not answer ({error.code}: {error.message})")
    if error.status is None:
        return ToolError(error.message)      # refused before sending (an id that is not one)
    return ToolError(f"{where} failed with {error.status}: {error_text(error.body)}")


def error_text(body: object) -> str:
    """The JSON error's detail (and field), else the body's start."""
    if isinstance(body, dict) and "detail" in body:
        detail = body["detail"] if isinstance(body["detail"], str) else json.dumps(body["detail"])
        where = f" (field {body['field']})" if body.get("field") else ""
        # /vision/click's 404/409: what is on the screen instead, for the next try.
        seen = f"; candidates: {json.dumps(body['candidates'])}" if body.get("candidates") else ""
        return f"{body.get('error', 'error')}: {detail}{where}{seen}"
    return ("" if body is None else body if isinstance(body, str) else json.dumps(body))[:2000]
