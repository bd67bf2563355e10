"""The execute route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body

from . import handlers
from .models import EXECUTE_BODY

EXECUTE_RESULT = {"type": "object", "properties": {
    "exit_code": {"type": ["integer", "null"], "description": "Negative: killed by that signal."},
    "signal": {"type": ["string", "null"]}, "timed_out": {"type": "boolean"},
    "stdout": {"type": "string"}, "stderr": {"type": "string"},
    "stdout_truncated": {"type": "boolean"}, "stderr_truncated": {"type": "boolean"},
    "stdout_bytes": {"type": "integer"}, "stderr_bytes": {"type": "integer"},
    "duration_s": {"type": "number"}, "pid": {"type": "integer"},
    "detached": {"type": "boolean"}, "log": {"type": ["string", "null"]}}}

ROUTES: list[Route] = [
    Route("POST", "/api/v1/execute", with_body(EXECUTE_BODY, handlers.execute),
          "Run a command, or launch a GUI app (detach)",
          "system", uses_x=False,
          concurrency=16,
          success={"application/json": {"schema": EXECUTE_RESULT}}),
]
