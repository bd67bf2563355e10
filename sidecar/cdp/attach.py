"""How a session is set up once the tracker (targets.py) attached it: one ordered list of steps
for every tab and out-of-process iframe, and the pipeline that runs them, so no other part
configures sessions of its own.

The steps go out in this order without waiting for each other's answer (Chromium runs one
session's commands in the order received), so a page that loads right after it attached is
watched at once; a tab attached mid-navigation answers the renderer's steps only once that
navigation ends, which is why a page counts as ready as soon as its ``readies`` step answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .connection import CDPConnection, CDPError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SetupStep:
    method: str
    params: Mapping[str, object] | None = None
    # What to send instead when Chromium rejects ``params`` (an older one not knowing a field).
    fallback: Mapping[str, object] | None = None
    readies: bool = False           # the page is ready (its OOPIFs followed) once this answered
    only_paused: bool = False       # only for a target that waits for a debugger to resume it


def auto_attach(target_type: str) -> SetupStep:
    """Attach (flattened, never paused) to the targets of ``target_type`` below a session, or below
    the browser; Chromium older than ~M106 rejects "filter": then follow everything, sort by type."""
    follow = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
    return SetupStep("Target.setAutoAttach", {**follow, "filter": [{"type": target_type}]}, fallback=follow,
                     readies=True)


# The browser itself: its tabs (workers and extensions are not tabs).
BROWSER_SETUP = auto_attach("page")

SESSION_SETUP: tuple[SetupStep, ...] = (
    auto_attach("iframe"),                   # its OOPIFs (and theirs, each set up here too)
    SetupStep("Page.enable"),                # navigations (tracker); dialogs, loading (agent)
    SetupStep("Runtime.enable"),             # console messages and exceptions (agent)
    SetupStep("Network.enable"),             # requests (agent)
    SetupStep("Log.enable"),                 # browser log entries (agent)
    SetupStep("Page.setInterceptFileChooserDialog", {"enabled": True}),   # file choosers (agent)
    # Last: a target someone else started paused runs once it is set up.
    SetupStep("Runtime.runIfWaitingForDebugger", only_paused=True),
)


class AttachPipeline:
    """Runs the steps on the tracker's connection: BROWSER_SETUP once, SESSION_SETUP for each
    session the tracker attached."""

    def __init__(self, conn: CDPConnection, timeout: float) -> None:
        self.conn = conn
        self.timeout = timeout
        self._fallen_back: set[str] = set()     # steps Chromium wanted the fallback of

    async def set_up_browser(self) -> None:
        await self._send(BROWSER_SETUP, None)

    async def set_up(self, session_id: str, paused: bool, readied: Callable[[], None]) -> None:
        """Sends the steps in order, all at once, then weighs the answers in the same order;
        ``readied()`` once the readying step answered (or the setup ended without it)."""
        steps = [step for step in SESSION_SETUP if paused or not step.only_paused]
        replies = [asyncio.ensure_future(self._send(step, session_id)) for step in steps]
        told = False
        try:
            for step, reply in zip(steps, replies):
                try:
                    await reply
                except CDPError as exc:
                    # The target went away (closed tab, navigated iframe) before it was set up.
                    log.debug("%s on session %s failed: %s", step.method, session_id, exc)
                if step.readies and not told:
                    told = True
                    readied()
        finally:
            for reply in replies:
                reply.cancel()
            if not told:
                readied()

    async def _send(self, step: SetupStep, session_id: str | None) -> None:
        """``step`` on ``session_id`` (None: the browser), with its fallback once Chromium
        rejected its params (then for every session after, too)."""
        fallen_back = step.method in self._fallen_back and step.fallback is not None
        params = step.fallback if fallen_back else step.params
        try:
            await self.conn.send_raw(step.method, params, session_id=session_id, timeout=self.timeout)
        except CDPError as exc:
            if step.fallback is None or fallen_back or exc.code is None:
                raise
            self._fallen_back.add(step.method)
            await self.conn.send_raw(step.method, step.fallback, session_id=session_id, timeout=self.timeout)
