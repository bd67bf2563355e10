"""An episode's network: the sidecar's HAR capture started with the episode, the requests each
step set off (read as they come, so a step's record names them when it is written), and, when
the episode ends, ``network.har`` beside the steps. HAR headers hold cookies: the file is the
user's alone (0600). What could not be captured is said in the record, never a missing file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..client import Desktop
from ..errors import DesktopError

HAR_FILE = "network.har"


def write_private_json(path: Path, value: object) -> None:
    """``value`` as JSON in a file only its owner can read (cookies, tokens), replaced whole."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(value, file, ensure_ascii=False)
    os.replace(temporary, path)


def request_names(entries: list[dict]) -> list[dict]:
    """How a step record names its requests: network.har's _requestId and _seq, method, URL and
    status (0 for a failed one, null while no answer came)."""
    names = []
    for entry in entries:
        response = entry.get("response", {})
        done = response.get("status") or response.get("_error") != "no response before the capture stopped"
        names.append({"id": entry.get("_requestId"), "seq": entry.get("_seq"),
                      "method": entry["request"]["method"], "url": entry["request"]["url"],
                      "status": response.get("status") if done else None})
    return names


class NetworkLog:
    """The sidecar's HAR capture over one episode."""

    def __init__(self, desktop: Desktop, *, content: bool = False) -> None:
        self.desktop = desktop
        self.error: str | None = None
        self._next = 1
        try:
            self._next = int(desktop.har_start(content=content).get("next", 1))
        except DesktopError as error:
            self.error = f"the HAR capture did not start: {error}"

    def begin_step(self) -> None:
        """Just before an action: the requests so far belong to no step (the HAR has them)."""
        self.step_requests()

    def step_requests(self) -> list[dict] | None:
        """The requests that started since the previous call (None when nothing is captured)."""
        if self.error is not None:
            return None
        try:
            answer = self.desktop.har(since=self._next)
        except DesktopError as error:
            self.error = f"the HAR capture was lost: {error}"
            return None
        self._next = int(answer.get("next", self._next))
        return request_names(answer["log"]["entries"])

    def finish(self, directory: Path) -> dict:
        """Stops the capture and writes network.har; the record's ``network``."""
        if self.error is not None:
            return {"file": None, "entries": 0, "reason": self.error}
        try:
            har = self.desktop.har_stop()
        except DesktopError as error:
            return {"file": None, "entries": 0, "reason": f"the HAR capture could not be stopped: {error}"}
        write_private_json(directory / HAR_FILE, har)
        return {"file": HAR_FILE, "entries": len(har["log"]["entries"]), "reason": None}
