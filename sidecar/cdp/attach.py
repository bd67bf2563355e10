"""How a session is set up once the tracker (targets.py) attached it: one ordered list of steps
for every tab and out-of-process iframe, so no other part configures sessions of its own.

The steps go out in this order without waiting for each other's answer (Chromium runs one
session's commands in the order received), so a page that loads right after it attached is
watched at once; a tab attached mid-navigation answers the renderer's steps only once that
navigation ends, which is why a page counts as ready as soon as its ``readies`` step answered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


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
