"""An agent's side of the contract, written from docs/agent.md alone: read the snapshot text,
find a ref by role and name, act on it, read again."""

from __future__ import annotations

import re
import time
from typing import Any

import requests

LINE = re.compile(r'^(?P<indent>\s*)- (?P<role>[\w-]+)(?: (?P<name>"(?:[^"\\]|\\.)*"))?(?P<rest>.*)$')


class Agent:
    def __init__(self, sidecar_url: str, mode: str = "visible", client: str = "test-agent") -> None:
        self.url = sidecar_url
        self.mode = mode
        self.http = requests.Session()
        self.http.headers["X-Agent-Client"] = client
        self.text = ""

    def snapshot(self, **params: Any) -> str:
        response = self.http.get(self.url + "/snapshot", params=params, timeout=30)
        assert response.status_code == 200, response.text
        self.text = response.text
        return self.text

    def ref(self, role: str, name: str, text: str | None = None) -> str:
        """The ref of the one element with this role and (exact) name in the last snapshot."""
        found = []
        for line in (text or self.text).splitlines():
            match = LINE.match(line)
            if match and match["role"] == role and match["name"] and \
                    match["name"][1:-1].replace('\\"', '"') == name:
                ref = re.search(r"\[ref=([\w]+)\]", match["rest"])
                if ref:
                    found.append(ref.group(1))
        assert len(found) == 1, f"{len(found)} {role} named {name!r} in:\n{text or self.text}"
        return found[0]

    def act(self, kind: str, expect: int = 200, **body: Any) -> dict[str, Any]:
        body.setdefault("mode", self.mode)
        response = self.http.post(self.url + "/act", json={"kind": kind, **body}, timeout=60)
        assert response.status_code == expect, (kind, body, response.status_code, response.text)
        return response.json()

    def post(self, path: str, body: dict[str, Any], expect: int = 200) -> dict[str, Any]:
        response = self.http.post(self.url + path, json=body, timeout=30)
        assert response.status_code == expect, (path, body, response.status_code, response.text)
        return response.json()

    def get(self, path: str, **params: Any) -> Any:
        response = self.http.get(self.url + path, params=params, timeout=30)
        assert response.status_code == 200, (path, response.text)
        return response.json() if "json" in response.headers.get("Content-Type", "") else response.content

    def wait_for_text(self, text: str, attempts: int = 50, **params: Any) -> str:
        """Snapshots until ``text`` shows (bounded)."""
        for _ in range(attempts):
            if text in self.snapshot(**params):
                return self.text
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared:\n{self.text}")
