"""The browser's word in a settle: the sidecar (sidecar/server/settle_evidence.py) tells whether the page
in front took an act's clicks in and has nothing left to draw, sooner than a quiet window can.

Only clicks ask: the page sees their mouseups, so it can tell they arrived. The act's start is
sent on this host's monotonic clock, so the sidecar must run on this host (a loopback URL).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import aiohttp

from desktopd.settle.changes import Rect
from httpapi.json_types import JSONObject, JSONValue

log = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
EXTRA_BUDGET_S = 1.0     # beyond the page's own waits: the hops to the page and back


@dataclass(frozen=True)
class Clicks:
    """What an act gives the page: ``count`` left-button clicks, begun at ``started``
    (time.monotonic())."""

    started: float
    count: int


@dataclass(frozen=True)
class Verdict:
    evidence: str      # idle: nothing to draw; changed: a frame is due; none: no evidence
    detail: str
    due_s: float | None = None   # changed by timers: the last one's, seconds after the act began
    due_in_s: float | None = None   # ... and seconds after the answer
    # changed, all drawn in one frame the page had produced when it answered, landing in this
    # rectangle of the screen (the page's viewport)
    frame_at: Rect | None = None
    drawn_s: float | None = None    # ... produced this long after the act began (the page's clock)


class BrowserEvidence(Protocol):
    async def ask(self, clicks: Clicks, wait_s: float, horizon_s: float) -> Verdict: ...

    async def close(self) -> None: ...


class SidecarEvidence:
    """POST <sidecar>/settle on one kept-alive connection."""

    def __init__(self, url: str, token: str | None) -> None:
        self.url = url.rstrip("/") + "/settle"
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._session: aiohttp.ClientSession | None = None

    async def ask(self, clicks: Clicks, wait_s: float, horizon_s: float) -> Verdict:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        wait_s, horizon_s = round(max(0.0, wait_s), 4), round(max(0.0, horizon_s), 4)
        body = {"started": clicks.started, "clicks": clicks.count, "wait_s": wait_s, "horizon_s": horizon_s}
        try:
            async with self._session.post(self.url, json=body, headers=self._headers, timeout=aiohttp.ClientTimeout(
                    total=wait_s + horizon_s + EXTRA_BUDGET_S)) as resp:
                answer: JSONValue = await resp.json(content_type=None)
                if resp.status != 200 or not isinstance(answer, dict):
                    return Verdict("none", f"sidecar answered {resp.status}")
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            return Verdict("none", f"sidecar: {type(exc).__name__}: {exc}")
        evidence = answer.get("evidence")
        if evidence not in ("idle", "changed", "none"):
            return Verdict("none", "sidecar gave no verdict")
        due, due_in = answer.get("due_s"), answer.get("due_in_s")
        if evidence != "changed" or not isinstance(due, (int, float)) or not isinstance(due_in, (int, float)):
            frame_at = _viewport(answer) if evidence == "changed" else None
            drawn = answer.get("drawn_s")
            return Verdict(evidence, str(answer.get("detail") or ""), frame_at=frame_at,
                           drawn_s=float(drawn) if frame_at is not None and isinstance(drawn, (int, float))
                           and not isinstance(drawn, bool) else None)
        return Verdict(evidence, str(answer.get("detail") or ""), float(due), float(due_in))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def _viewport(answer: JSONObject) -> Rect | None:
    """The one frame's screen rectangle, when the page said its change is drawn in one."""
    view = answer.get("viewport")
    if answer.get("one_frame") is not True or not isinstance(view, list) or len(view) != 4:
        return None
    edges = [v for v in view if isinstance(v, int) and not isinstance(v, bool)]
    if len(edges) != 4 or edges[2] <= 0 or edges[3] <= 0:
        return None
    return edges[0], edges[1], edges[2], edges[3]


def sidecar_evidence(url: str, token: str | None, configured: bool) -> SidecarEvidence | None:
    """The sidecar's evidence when one is configured on this host."""
    if not configured or urlsplit(url).hostname not in LOOPBACK:
        return None
    return SidecarEvidence(url, token)


def tablet_clicks(body: Mapping[str, object], started: float) -> Clicks | None:
    """A tap, or a left click (1-3 clicks) with no modifiers, alone in its body."""
    if body.get("events") is not None or body.get("modifiers"):
        return None
    action = body["action"]
    if action == "tap":
        return Clicks(started, 1)
    if action in ("click", "double_click") and body.get("button", "left") in ("left", 1):
        clicks = body.get("clicks")
        return Clicks(started, 2 if action == "double_click" else clicks if isinstance(clicks, int) and clicks else 1)
    return None
