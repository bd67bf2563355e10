"""Episode reset: the desktop back to a known state without restarting anything.

Top-level windows other than the desktop's own (panel, desktop, window manager) and the browser
are closed (politely, then forcibly), input held by desktopd is released, the clipboard emptied,
the pointer moved home; the browser is the sidecar's to reset (a new browser context of the
running Chromium, or a new Chromium on a fresh or named profile: sidecar/browser/supervisor.py).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import TypedDict

import aiohttp

from desktopd.backend.protocol import Backend
from desktopd_contract.windows import WindowInfo
from httpapi.errors import ApiError
from httpapi.json_types import JSONObject, JSONValue

# WM_CLASS names (instance or class, case-insensitive) of the browsers' windows (the sidecar
# resets those), and of the windows a reset keeps: the XFCE session's own and the browsers'.
BROWSER_CLASSES = frozenset({"chromium", "chromium-browser", "google-chrome"})
DESKTOP_CLASSES = frozenset({
    "xfce4-panel", "xfdesktop", "xfwm4", "xfce4-notifyd", "xfce4-session", "wrapper-2.0",
    "wrapper-1.0", "panel", "desktop_window", *BROWSER_CLASSES,
})
SIDECAR_TIMEOUT_S = 120.0
FOCUS_BUDGET_S = 5.0


class ClosedWindows(TypedDict):
    """Window ids: asked to close and gone, killed after all, and still there (kept)."""
    closed: list[int]
    killed: list[int]
    kept: list[int]


def class_names(window: WindowInfo) -> set[str]:
    return {name.lower() for name in (window.get("wm_class") or ()) if name}


def kept(window: WindowInfo, extra: frozenset[str]) -> bool:
    return bool(class_names(window) & (DESKTOP_CLASSES | extra))


def close_windows(desk: Backend, keep: frozenset[str]) -> ClosedWindows:
    """On the X thread: ask every other top-level window to close, then kill what stayed."""
    targets = [w for w in desk.windows() if not kept(w, keep)]
    closed: list[int] = []
    killed: list[int] = []
    for window in targets:
        try:
            result = desk.window_action(window["id"], "close")
        except Exception:   # noqa: BLE001 - a window may vanish or refuse; force below
            result = {"closed": False}
        if result.get("closed"):
            closed.append(window["id"])
    remaining = {w["id"] for w in desk.windows()}
    for window in targets:
        if window["id"] in remaining:
            try:
                desk.window_action(window["id"], "close", force=True)
                killed.append(window["id"])
            except Exception:   # noqa: BLE001 - already gone
                pass
    return {"closed": closed, "killed": killed,
            "kept": [w["id"] for w in desk.windows()]}


def focus_browser(desk: Backend, pid: object) -> int | None:
    """On the X thread: the browser's top window gets the keyboard, as a person's would have it.
    A reset in a new browser context opens a new window and closes the old one, and a window
    manager that started after the browser's window leaves no window focused: the episode's
    first keys would go nowhere. The browser's windows are found by its ``pid`` (else by
    WM_CLASS); asked again until the focus is there (a window manager still starting drops the
    request), at most FOCUS_BUDGET_S. None when the browser shows no window."""
    deadline = time.monotonic() + FOCUS_BUDGET_S
    while True:
        shown = [w for w in desk.windows() if not w.get("minimized") and w.get("window_type") == "normal"]
        mine = [w for w in shown if isinstance(pid, int) and w.get("pid") == pid] or \
            [w for w in shown if class_names(w) & BROWSER_CLASSES]
        if not mine:
            return None
        top = mine[-1]                # windows() lists bottom to top
        if top.get("focused") or time.monotonic() >= deadline:
            return int(top["id"])
        desk.window_action(top["id"], "focus")


@dataclass(frozen=True)
class SidecarClient:
    """POST <sidecar>/reset with its token; bounded by a timeout."""

    url: str
    token: str | None

    async def reset(self, urls: list[str] | None, timeout: float = SIDECAR_TIMEOUT_S,
                    profile: str | None = None, isolation: str | None = None) -> JSONObject:
        """The sidecar's answer (a JSON object: its reset's report)."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        body: dict[str, object] = {"urls": urls} if urls is not None else {}
        if profile is not None:
            body["profile"] = profile
        if isolation is not None:
            body["isolation"] = isolation
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(self.url.rstrip("/") + "/reset", json=body, headers=headers,
                                        timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
                    text = await resp.text()
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            raise ApiError(502, "sidecar_unavailable",
                           f"{self.url}/reset: {type(exc).__name__}: {exc}") from None
        answer: JSONValue
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {"detail": text[:500]}
        if resp.status != 200:
            if resp.status in (403, 422) and isinstance(answer, dict) and answer.get("field"):
                raise ApiError(422, "invalid_field", answer.get("detail"), field=str(answer["field"]))
            if resp.status == 409 and isinstance(answer, dict) and answer.get("error") == "profile_in_use":
                raise ApiError(409, "profile_in_use", answer.get("detail"), field="profile")
            raise ApiError(502, "sidecar_reset_failed", {"status": resp.status, "answer": answer})
        if not isinstance(answer, dict):
            raise ApiError(502, "sidecar_reset_failed", {"status": resp.status, "answer": answer})
        return answer


class Timer:
    """Seconds per named part, for the answer."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}
        self._started = time.monotonic()

    def lap(self, name: str, since: float) -> None:
        self.parts[name] = round(time.monotonic() - since, 4)

    def total(self) -> float:
        return round(time.monotonic() - self._started, 4)
