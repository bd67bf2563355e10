"""What happened in one tab, collected from CDP events into bounded buffers: console messages,
page errors, network requests, and the modal states (a JavaScript dialog, a file chooser) that
block the page until someone answers them."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypedDict, cast

from ..cdp.protocol.cdp_events import (NetworkLoadingFailedEvent, NetworkRequestWillBeSentEvent,
                                       NetworkResponseReceivedEvent, RuntimeConsoleAPICalledEvent,
                                       RuntimeExceptionThrownEvent)
from ..cdp.protocol.cdp_types import LogLogEntry, RuntimeExceptionDetails, RuntimeRemoteObject

MAX_CONSOLE = 1000
MAX_ERRORS = 200
MAX_REQUESTS = 1000
MAX_DIALOGS = 50
LEVELS = ("debug", "info", "warning", "error")
# Runtime.consoleAPICalled's types by level.
_LEVEL_OF = {"log": "info", "info": "info", "debug": "debug", "dir": "debug", "dirxml": "debug",
             "table": "info", "trace": "debug", "clear": "debug", "startGroup": "debug",
             "startGroupCollapsed": "debug", "endGroup": "debug", "assert": "error",
             "profile": "debug", "profileEnd": "debug", "count": "debug", "timeEnd": "debug",
             "warning": "warning", "error": "error"}


class ConsoleMessage(TypedDict):
    level: str
    type: str
    text: str
    url: str
    line: int | None
    timestamp: float | None


class PageError(TypedDict):
    message: str
    url: str
    line: int | None
    column: int | None
    timestamp: float | None


class RequestEntry(TypedDict):
    url: str
    method: str
    type: str
    status: int | None
    failed: str | None
    started: float | None
    mime_type: NotRequired[str | None]


class ChooserAnswer(TypedDict):
    mode: str
    paths: list[str]


class DialogAnswer(TypedDict):
    accept: bool
    prompt_text: NotRequired[str | None]
    by: NotRequired[str]


class DialogJSON(TypedDict):
    type: str
    message: str
    url: str
    default_prompt: NotRequired[str]
    answered: NotRequired[DialogAnswer]


class ModalState(TypedDict):
    """What blocks the page until an agent answers it (a dialog's fields, or a chooser's mode)."""

    kind: Literal["dialog", "file_chooser"]
    answer_with: str
    type: NotRequired[str]
    message: NotRequired[str]
    url: NotRequired[str]
    default_prompt: NotRequired[str]
    answered: NotRequired[DialogAnswer]
    mode: NotRequired[str]


def _arg_text(arg: RuntimeRemoteObject) -> str:
    if "value" in arg:
        value = arg["value"]
        return value if isinstance(value, str) else repr(value)
    return str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))


@dataclass
class Dialog:
    type: str
    message: str
    default_prompt: str
    url: str
    session_id: str
    opened_at: float = field(default_factory=time.time)
    answer: DialogAnswer | None = None

    def json(self) -> DialogJSON:
        body: DialogJSON = {"type": self.type, "message": self.message, "url": self.url}
        if self.type == "prompt":
            body["default_prompt"] = self.default_prompt
        if self.answer is not None:
            body["answered"] = self.answer
        return body


@dataclass
class FileChooser:
    session_id: str
    backend_node_id: int
    frame_id: str
    mode: str


@dataclass
class DialogArm:
    accept: bool
    prompt_text: str | None


class TabEvents:
    """The buffers of one tab (its page session and the OOPIF sessions under it)."""

    def __init__(self) -> None:
        self.console: deque[ConsoleMessage] = deque(maxlen=MAX_CONSOLE)
        self.errors: deque[PageError] = deque(maxlen=MAX_ERRORS)
        self.requests: OrderedDict[str, RequestEntry] = OrderedDict()
        self.dialogs: deque[Dialog] = deque(maxlen=MAX_DIALOGS)   # every dialog, answered or not
        self.pending_dialog: Dialog | None = None
        self.dialog_arm: DialogArm | None = None
        self.pending_chooser: FileChooser | None = None
        self.chooser_arm: list[str] | None = None
        self.choosers: deque[ChooserAnswer] = deque(maxlen=MAX_DIALOGS)
        self.main_loading = False
        self.requested_at: float | None = None    # loop time a main-frame navigation was asked for
        self.navigations = 0                      # main-frame documents committed
        self.modal = asyncio.Event()              # set while a dialog or chooser waits
        self.change = asyncio.Event()             # pulsed on loading/navigation changes
        self.lost = 0                             # messages dropped from full buffers

    def pulse(self) -> None:
        self.change.set()
        self.change = asyncio.Event()

    def update_modal(self) -> None:
        if self.pending_dialog is not None or self.pending_chooser is not None:
            self.modal.set()
        else:
            self.modal.clear()

    def add_console(self, params: RuntimeConsoleAPICalledEvent) -> None:
        kind = params.get("type", "log")
        stack = params.get("stackTrace")
        frames = stack.get("callFrames") if stack else None
        frame = frames[0] if frames else None
        if len(self.console) == self.console.maxlen:
            self.lost += 1
        self.console.append({
            "level": _LEVEL_OF.get(kind, "info"), "type": kind,
            "text": " ".join(_arg_text(a) for a in params.get("args", ())),
            "url": frame.get("url", "") if frame else "", "line": frame.get("lineNumber") if frame else None,
            "timestamp": params.get("timestamp")})

    def add_log_entry(self, entry: LogLogEntry) -> None:
        """Log.entryAdded: the browser's own messages (failed loads, violations)."""
        level = {"verbose": "debug", "info": "info", "warning": "warning", "error": "error"}.get(
            entry.get("level", "info"), "info")
        self.console.append({"level": level, "type": entry.get("source", "other"),
                             "text": entry.get("text", ""), "url": entry.get("url", ""),
                             "line": entry.get("lineNumber"), "timestamp": entry.get("timestamp")})

    def add_error(self, params: RuntimeExceptionThrownEvent) -> None:
        # Required by the protocol; an empty one still records the error rather than dropping it.
        details = params.get("exceptionDetails") or cast(RuntimeExceptionDetails, {})
        exception = details.get("exception")
        text = (exception.get("description") if exception else None) or details.get("text", "")
        self.errors.append({"message": text, "url": details.get("url", ""),
                            "line": details.get("lineNumber"), "column": details.get("columnNumber"),
                            "timestamp": params.get("timestamp")})
        self.console.append({"level": "error", "type": "pageerror", "text": text,
                             "url": details.get("url", ""), "line": details.get("lineNumber"),
                             "timestamp": params.get("timestamp")})

    def request_sent(self, params: NetworkRequestWillBeSentEvent) -> None:
        request = params.get("request") or {}
        self.requests[params.get("requestId", "")] = {
            "url": request.get("url", "")[:2000], "method": request.get("method", ""),
            "type": params.get("type", ""), "status": None, "failed": None,
            "started": params.get("wallTime")}
        while len(self.requests) > MAX_REQUESTS:
            self.requests.popitem(last=False)

    def response(self, params: NetworkResponseReceivedEvent) -> None:
        entry = self.requests.get(params.get("requestId", ""))
        if entry is not None:
            response = params.get("response") or {}
            entry["status"] = response.get("status")
            entry["mime_type"] = response.get("mimeType")

    def failed(self, params: NetworkLoadingFailedEvent) -> None:
        entry = self.requests.get(params.get("requestId", ""))
        if entry is not None:
            entry["failed"] = params.get("errorText") or "failed"

    def modal_state(self) -> ModalState | None:
        """The modal state an agent must answer before the page goes on, or None."""
        if self.pending_dialog is not None:
            return {"kind": "dialog", **self.pending_dialog.json(),
                    "answer_with": "POST /hooks/dialog {\"accept\": true|false, \"prompt_text\": ...}"}
        if self.pending_chooser is not None:
            return {"kind": "file_chooser", "mode": self.pending_chooser.mode,
                    "answer_with": "POST /hooks/file-chooser {\"paths\": [...]} (an empty list cancels)"}
        return None
