"""The execute route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from httpapi.fields import F, Bool, Int, Nullable, Number, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route, with_body

from . import handlers
from .models import EXECUTE_BODY

EXECUTE_RESULT = ResponseModel("ExecuteResult", [
    F("exit_code", Nullable(Int()), description="Negative: killed by that signal."),
    F("signal", Nullable(Str())), F("timed_out", Bool()),
    F("stdout", Str()), F("stderr", Str()),
    F("stdout_truncated", Bool()), F("stderr_truncated", Bool()),
    F("stdout_bytes", Int()), F("stderr_bytes", Int()),
    F("duration_s", Number()), F("pid", Int()),
    F("detached", Bool()), F("log", Nullable(Str())),
])

ROUTES: list[Route] = [
    Route("POST", "/api/v1/execute", with_body(EXECUTE_BODY, handlers.execute),
          "Run a command, or launch a GUI app (detach)",
          "system", uses_x=False,
          concurrency=16,
          returns=EXECUTE_RESULT),
]
