"""The agent state of one CDP connection, created beside its TargetTracker and dropped with it:
each tab's refs and events, each client's last snapshot (for diffs), the downloads, and the
CDP event subscriptions that fill them."""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar, cast

from ..cdp.connection import CDPConnection, CDPError, EventCallback
from ..cdp.protocol.cdp_commands import PageHandleJavaScriptDialogParams
from ..cdp.targets import TargetTracker
from .events import Dialog, FileChooser, TabEvents
from .refs import RefTable
from .tree_text import LineCache

log = logging.getLogger(__name__)

E = TypeVar("E")             # one CDP event's parameters (a TypedDict of cdp_events)
R = TypeVar("R")
MAX_DIFF_CLIENTS = 64          # (client, tab) pairs whose last snapshot is kept
MAX_DOWNLOADS = 200
class Download(TypedDict):
    """One download as GET /downloads lists it (beside its guid)."""

    url: str
    suggested_filename: str
    path: str
    state: str
    received_bytes: float
    total_bytes: float | None


@dataclass(frozen=True)
class AgentConfig:
    downloads_dir: str
    call_timeout: float


@dataclass
class TabState:
    """What the agent keeps of one tab, dropped together when the tab closes."""
    refs: RefTable
    events: TabEvents = field(default_factory=TabEvents)
    lines: LineCache = field(default_factory=LineCache)       # for its next snapshot


class AgentSession:
    def __init__(self, conn: CDPConnection, tracker: TargetTracker, config: AgentConfig) -> None:
        self.conn = conn
        self.tracker = tracker
        self.config = config
        self._tabs: dict[str, TabState] = {}
        self._diffs: OrderedDict[tuple[str, str], dict[str, str]] = OrderedDict()
        self.downloads: OrderedDict[str, Download] = OrderedDict()
        self._tasks: set[asyncio.Task] = set()
        self._handlers = {
            "Target.detachedFromTarget": self._on_detached,
            "Runtime.consoleAPICalled": self._tab_call(TabEvents.add_console),
            "Runtime.exceptionThrown": self._tab_call(TabEvents.add_error),
            "Log.entryAdded": lambda p, s: self._tab_call(TabEvents.add_log_entry)(p.get("entry", {}), s),
            "Network.requestWillBeSent": self._tab_call(TabEvents.request_sent),
            "Network.responseReceived": self._tab_call(TabEvents.response),
            "Network.loadingFailed": self._tab_call(TabEvents.failed),
            "Page.javascriptDialogOpening": self._on_dialog,
            "Page.javascriptDialogClosed": self._on_dialog_closed,
            "Page.fileChooserOpened": self._on_file_chooser,
            "Page.frameRequestedNavigation": self._on_requested,
            "Page.frameStartedLoading": self._on_loading(True),
            "Page.frameStoppedLoading": self._on_loading(False),
            "Page.frameNavigated": self._on_navigated,
            "Browser.downloadWillBegin": self._on_download,
            "Browser.downloadProgress": self._on_download_progress,
        }

    async def start(self) -> None:
        """Before the tracker starts, so its listeners hear the first pages' events (the
        tracker sets every session up: cdp/attach.py)."""
        for method, handler in self._handlers.items():
            self.conn.on(method, handler)
        os.makedirs(self.config.downloads_dir, exist_ok=True)
        try:
            await self.conn.send("Browser.setDownloadBehavior", {
                "behavior": "allowAndName", "downloadPath": self.config.downloads_dir, "eventsEnabled": True},
                timeout=self.config.call_timeout)
        except CDPError as exc:
            log.warning("downloads will not be collected: %s", exc)

    def stop(self) -> None:
        for method, handler in self._handlers.items():
            self.conn.off(method, handler)
        for task in list(self._tasks):
            task.cancel()

    # -- per-tab state ----------------------------------------------------------------------

    def _tab(self, target_id: str) -> TabState:
        state = self._tabs.get(target_id)
        if state is None:
            state = self._tabs[target_id] = TabState(RefTable(target_id))
        return state

    def refs(self, target_id: str) -> RefTable:
        return self._tab(target_id).refs

    def lines(self, target_id: str) -> LineCache:
        """The tab's snapshot lines, kept for its next snapshot (render.LineCache)."""
        return self._tab(target_id).lines

    def events(self, target_id: str) -> TabEvents:
        return self._tab(target_id).events

    def previous_snapshot(self, client: str, target_id: str) -> dict[str, str] | None:
        hashes = self._diffs.get((client, target_id))
        if hashes is not None:
            self._diffs.move_to_end((client, target_id))
        return hashes

    def remember_snapshot(self, client: str, target_id: str, hashes: dict[str, str]) -> None:
        self._diffs[(client, target_id)] = hashes
        self._diffs.move_to_end((client, target_id))
        while len(self._diffs) > MAX_DIFF_CLIENTS:
            self._diffs.popitem(last=False)

    def spawn(self, coro: Coroutine[object, object, R]) -> asyncio.Task[R]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("agent task failed: %s", task.exception())

    # -- event handlers (sync, in the connection's reader) ------------------------------------

    def _tab_of(self, session_id: str | None) -> TabEvents | None:
        if session_id is None:
            return None
        page = self.tracker.page_for_session(session_id)
        return self.events(page.target_id) if page is not None else None

    def _tab_call(self, method: Callable[[TabEvents, E], None]) -> EventCallback:
        """A connection callback handing an event of a tab's session to its buffers; the params
        are the event's as the protocol describes them (``E``, from cdp_events)."""
        def handler(params: dict, session_id: str | None) -> None:
            tab = self._tab_of(session_id)
            if tab is not None:
                method(tab, cast(E, params))
        return handler

    def _on_detached(self, params: dict, _parent: str | None) -> None:
        target_id = params.get("targetId")
        if target_id and target_id in self._tabs and self.tracker.find_page(target_id) is None:
            del self._tabs[target_id]

    def _on_dialog(self, params: dict, session_id: str | None) -> None:
        tab = self._tab_of(session_id)
        if tab is None or session_id is None:
            return
        dialog = Dialog(params.get("type", "alert"), params.get("message", ""),
                        params.get("defaultPrompt", ""), params.get("url", ""), session_id)
        tab.dialogs.append(dialog)
        if tab.dialog_arm is not None:
            arm, tab.dialog_arm = tab.dialog_arm, None
            self.spawn(self.answer_dialog(tab, dialog, arm.accept, arm.prompt_text))
        else:
            tab.pending_dialog = dialog
        tab.update_modal()
        tab.pulse()

    def _on_dialog_closed(self, params: dict, session_id: str | None) -> None:
        tab = self._tab_of(session_id)
        if tab is not None and tab.pending_dialog is not None:
            dialog, tab.pending_dialog = tab.pending_dialog, None
            if dialog.answer is None:
                dialog.answer = {"accept": bool(params.get("result")), "by": "page or user"}
            tab.update_modal()

    async def answer_dialog(self, tab: TabEvents, dialog: Dialog, accept: bool,
                            prompt_text: str | None) -> None:
        request: PageHandleJavaScriptDialogParams = {"accept": accept}
        if prompt_text is not None:
            request["promptText"] = prompt_text
        dialog.answer = {"accept": accept, "prompt_text": prompt_text}
        if tab.pending_dialog is dialog:
            tab.pending_dialog = None
            tab.update_modal()
        await self.conn.send("Page.handleJavaScriptDialog", request, session_id=dialog.session_id,
                             timeout=self.config.call_timeout)

    def _on_file_chooser(self, params: dict, session_id: str | None) -> None:
        tab = self._tab_of(session_id)
        if tab is None or session_id is None:
            return
        chooser = FileChooser(session_id, int(params.get("backendNodeId") or 0),
                              params.get("frameId", ""), params.get("mode", "selectSingle"))
        if tab.chooser_arm is not None:
            paths, tab.chooser_arm = tab.chooser_arm, None
            self.spawn(self.answer_chooser(tab, chooser, paths))
        else:
            tab.pending_chooser = chooser
        tab.update_modal()
        tab.pulse()

    async def answer_chooser(self, tab: TabEvents, chooser: FileChooser, paths: list[str]) -> None:
        if tab.pending_chooser is chooser:
            tab.pending_chooser = None
            tab.update_modal()
        tab.choosers.append({"mode": chooser.mode, "paths": paths})
        if chooser.backend_node_id:
            await self.conn.send("DOM.setFileInputFiles", {"files": paths,
                                                           "backendNodeId": chooser.backend_node_id},
                                 session_id=chooser.session_id, timeout=self.config.call_timeout)

    def _on_loading(self, started: bool) -> EventCallback:
        def handler(params: dict, session_id: str | None) -> None:
            page = self.tracker.page_for_session(session_id) if session_id else None
            if page is None or params.get("frameId") != page.target_id:
                return          # only the tab's main frame says whether the tab is loading
            tab = self.events(page.target_id)
            tab.main_loading = started
            tab.requested_at = None
            tab.pulse()
        return handler

    def _on_requested(self, params: dict, session_id: str | None) -> None:
        """A link or form asked for a navigation (it may still turn into a download or be
        cancelled, so waiting on it alone is bounded: see act.settle)."""
        page = self.tracker.page_for_session(session_id) if session_id else None
        if page is not None and params.get("frameId") == page.target_id:
            tab = self.events(page.target_id)
            tab.requested_at = asyncio.get_running_loop().time()
            tab.pulse()

    def _on_navigated(self, params: dict, session_id: str | None) -> None:
        page = self.tracker.page_for_session(session_id) if session_id else None
        frame = params.get("frame") or {}
        if page is not None and frame.get("id") == page.target_id and not frame.get("parentId"):
            tab = self.events(page.target_id)
            tab.navigations += 1
            tab.pulse()

    def _on_download(self, params: dict, _session: str | None) -> None:
        name = os.path.basename(params.get("suggestedFilename") or "download")
        self.downloads[params.get("guid", "")] = {
            "url": params.get("url", ""), "suggested_filename": name,
            # allowAndName: saved under its guid, so two downloads of one name never collide.
            "path": os.path.join(self.config.downloads_dir, params.get("guid", "")), "state": "inProgress",
            "received_bytes": 0, "total_bytes": None}
        while len(self.downloads) > MAX_DOWNLOADS:
            self.downloads.popitem(last=False)

    def _on_download_progress(self, params: dict, _session: str | None) -> None:
        entry = self.downloads.get(params.get("guid", ""))
        if entry is not None:
            entry["state"] = params.get("state", entry["state"])
            entry["received_bytes"] = params.get("receivedBytes", entry["received_bytes"])
            entry["total_bytes"] = params.get("totalBytes") or entry["total_bytes"]
