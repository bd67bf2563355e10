"""POST /api/v1/execute's body model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, AnyOf, Bool, Int, ListOf, MapOf, Model, Number, Str

MAX_TIMEOUT = 600.0
DEFAULT_OUTPUT_CAP = 1 << 20


def _execute_check(e: Mapping[str, object]) -> tuple[str, str] | None:
    if e["shell"] and isinstance(e["command"], list):
        return "shell", "shell=true needs command as a string"
    if e["detach"] and e["stdin"] is not None:
        return "stdin", "does not apply to detach"
    return None


class ExecuteBody(TypedDict):
    command: list[str] | str
    shell: bool | None
    cwd: str | None
    env: dict[str, str] | None
    stdin: str | None
    timeout: float
    max_output: int
    detach: bool


EXECUTE_BODY = Typed(Model("ExecuteRequest", [
    F("command", AnyOf([ListOf(Str(min_length=1), min_items=1, max_items=4096),
                        Str(min_length=1, max_length=100_000)]), required=True,
      description="argv list (no shell), or a string run by /bin/sh -c."),
    F("shell", Bool(), description="For a string: false splits it like a shell instead (shlex)."),
    F("cwd", Str(min_length=1), description="Working directory (must exist)."),
    F("env", MapOf(Str(max_length=100_000), max_items=1000),
      description="Variables added to desktopd's environment (DISPLAY is the desktop's)."),
    F("stdin", Str(max_length=10 << 20), description="Text written to the process's stdin."),
    F("timeout", Number(maximum=MAX_TIMEOUT, exclusive_minimum=0), default=30.0,
      description="Seconds; the whole process group is killed when it expires."),
    F("max_output", Int(0, 64 << 20), default=DEFAULT_OUTPUT_CAP,
      description="Bytes kept per stream; the rest is drained and *_truncated is true."),
    F("detach", Bool(), default=False,
      description="Launch in the desktop session (new session, DISPLAY set) and return its pid."),
], check=_execute_check), ExecuteBody)
