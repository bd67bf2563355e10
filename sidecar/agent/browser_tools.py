"""The browser's tools beside the act: history, console messages, page errors, requests, PDF,
screenshots (page or element by ref), downloads, and the dialog and file-chooser hooks."""

from __future__ import annotations

import base64
import os
from typing import NotRequired, TypedDict

from httpapi.errors import ApiError

from ..cdp.protocol.cdp_commands import PageCaptureScreenshotParams
from ..cdp.targets import PageTarget, TargetTracker
from ..layout.runtime.seams import TabHealth
from ..layout import LayoutService
from .events import LEVELS, ConsoleMessage, DialogArm, DialogJSON, RequestEntry, TabEvents
from .page_snapshot import visibility
from .resolve import element_node, resolve
from .session import AgentSession


class HistoryMove(TypedDict):
    """Where a back, forward or reload went."""

    url: str
    title: NotRequired[str]


class ConsoleAnswer(TypedDict):
    messages: list[ConsoleMessage]
    total: int
    dropped: int


class RequestsAnswer(TypedDict):
    requests: list[RequestEntry]
    total: int


class DialogArmed(TypedDict):
    accept: bool
    prompt_text: str | None


class ChooserPaths(TypedDict):
    paths: list[str]


class DialogHookAnswer(TypedDict, total=False):
    """The dialog answered now, or the answer armed for the next one."""

    answered: DialogJSON
    armed: DialogArmed


class ChooserHookAnswer(TypedDict, total=False):
    answered: ChooserPaths
    armed: ChooserPaths


async def go_history(tracker: TargetTracker, page: PageTarget, step: int, timeout: float) -> HistoryMove:
    """Back (-1) or forward (+1) one entry; 409 when there is none."""
    history = await page.send("Page.getNavigationHistory", timeout=timeout)
    index = history["currentIndex"] + step
    entries = history["entries"]
    if not 0 <= index < len(entries):
        raise ApiError(409, "no_history", "there is no page to go " + ("back" if step < 0 else "forward")
                       + " to")
    await tracker.go_to_history_entry(page, entries[index]["id"], timeout)
    return {"url": entries[index]["url"], "title": entries[index].get("title", "")}


def console(events: TabEvents, level: str, limit: int) -> ConsoleAnswer:
    floor = LEVELS.index(level)
    messages = [m for m in events.console if LEVELS.index(m["level"]) >= floor]
    return {"messages": messages[-limit:], "total": len(messages), "dropped": events.lost}


def requests(events: TabEvents, limit: int, failed_only: bool) -> RequestsAnswer:
    entries = list(events.requests.values())
    if failed_only:
        entries = [e for e in entries if e["failed"] or (e["status"] or 0) >= 400]
    return {"requests": entries[-limit:], "total": len(entries)}


async def pdf(page: PageTarget, landscape: bool, background: bool, timeout: float) -> bytes:
    reply = await page.send("Page.printToPDF", {"landscape": landscape, "printBackground": background},
                            timeout=max(timeout, 30.0))
    return base64.b64decode(reply["data"])


async def screenshot(layout: LayoutService, agent: AgentSession, health: TabHealth,
                     page: PageTarget, ref: str | None, full_page: bool, timeout: float) -> bytes:
    if await visibility(page) == "hidden":
        # Chromium draws no frames for a tab behind another, and a capture of it waits for one
        # that may never come (every other capture hung until its timeout): say so at once.
        raise ApiError(409, "tab_hidden", f"tab {page.target_id} is behind another tab in its window, "
                       "and Chromium draws nothing for it; bring it to the front first "
                       f"(POST /tabs/{page.target_id}/activate)", field="tab")
    params: PageCaptureScreenshotParams = {"format": "png"}
    if ref is not None:
        element = await resolve(agent, page, ref, timeout)
        await element.session.send("DOM.scrollIntoViewIfNeeded",
                                   {"backendNodeId": element.key.backend_node_id}, timeout=timeout)
        node = await element_node(layout, element, health)
        box = node["bounds"]["borderBox"]          # document space of the top-level page
        if box["width"] <= 0 or box["height"] <= 0:
            raise ApiError(409, "not_rendered", f"ref {ref} has no area", field="ref")
        params["clip"] = {"x": box["x"], "y": box["y"], "width": box["width"],
                          "height": box["height"], "scale": 1}
        params["captureBeyondViewport"] = True
    elif full_page:
        metrics = await page.send("Page.getLayoutMetrics", timeout=timeout)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        params["captureBeyondViewport"] = True
    reply = await page.send("Page.captureScreenshot", params, timeout=max(timeout, 30.0))
    return base64.b64decode(reply["data"])


async def arm_dialog(agent: AgentSession, page: PageTarget, accept: bool,
                     prompt_text: str | None) -> DialogHookAnswer:
    """Answer the dialog open now, or the next one."""
    events = agent.events(page.target_id)
    if events.pending_dialog is not None:
        dialog = events.pending_dialog
        await agent.answer_dialog(events, dialog, accept, prompt_text)
        return {"answered": dialog.json()}
    events.dialog_arm = DialogArm(accept, prompt_text)
    return {"armed": {"accept": accept, "prompt_text": prompt_text}}


async def arm_file_chooser(agent: AgentSession, page: PageTarget, paths: list[str]) -> ChooserHookAnswer:
    """Answer the file chooser open now, or the next one."""
    for i, path in enumerate(paths):
        if not os.path.isabs(path) or not os.path.isfile(path):
            raise ApiError(422, "invalid_field", f"paths[{i}]: not an existing file's absolute path: "
                           f"{path!r}", field=f"paths[{i}]")
    events = agent.events(page.target_id)
    if events.pending_chooser is not None:
        await agent.answer_chooser(events, events.pending_chooser, paths)
        return {"answered": {"paths": paths}}
    events.chooser_arm = paths
    return {"armed": {"paths": paths}}
