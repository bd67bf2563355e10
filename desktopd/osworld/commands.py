"""/execute, /setup/execute, /setup/launch, /run_python and /run_bash_script: OSWorld's shapes over
desktopd's process runner (desktopd/execute/processes.py), in the desktop session (DISPLAY set)."""

from __future__ import annotations

import os
import tempfile
from typing import Literal, TypedDict

from aiohttp import web

from desktopd import app_keys
from desktopd.execute import processes
from desktopd.execute.handlers import argv_of, environment
from desktopd.execute.models import DEFAULT_OUTPUT_CAP
from httpapi.bodies import Typed
from httpapi.errors import invalid
from httpapi.fields import AnyOf, Bool, Enum, F, Int, ListOf, Model, Nullable, Str
from httpapi.responses import ResponseModel, TypedResponse

from .bodies import body_fields

# OSWorld's server gives a command 120 s, a Python script 30 s, a bash script what it asks (100).
EXECUTE_TIMEOUT_S = 120.0
PYTHON_TIMEOUT_S = 30.0
COMMAND = AnyOf([ListOf(Str(), min_items=1, max_items=4096), Str(min_length=1, max_length=100_000)])


class CommandOutput(TypedDict):
    """What OSWorld's routes read of a command's run: desktopd/execute/processes.py's RunResult
    is one (it has more keys), and so is the answer for a program that could not start."""
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool


class OsworldExecute(TypedDict):
    command: list[str] | str
    shell: bool


class OsworldRunPython(TypedDict):
    code: str


class OsworldRunBash(TypedDict):
    script: str
    timeout: int
    working_dir: str | None


EXECUTE_BODY = Typed(Model("OsworldExecute", [
    F("command", COMMAND, required=True,
      description="argv list, or a string (split like a shell unless shell is true)."),
    F("shell", Bool(), default=False,
      description="Run through /bin/sh -c (a list: its first item is the script, as Python's "
                  "subprocess does)."),
]), OsworldExecute)
PYTHON_BODY = Typed(Model("OsworldRunPython", [
    F("code", Str(min_length=1, max_length=10 << 20), required=True, description="A Python 3 program."),
]), OsworldRunPython)
BASH_BODY = Typed(Model("OsworldRunBash", [
    F("script", Str(min_length=1, max_length=10 << 20), required=True, description="A bash script."),
    F("timeout", Int(1, 3600), default=100, description="Seconds."),
    F("working_dir", Str(min_length=1), description="Directory to run in (~ expands)."),
]), OsworldRunBash)


class OsworldExecuteResult(TypedDict):
    status: Literal["success", "error"]
    output: str
    error: str
    returncode: int | None


EXECUTE_RESULT = TypedResponse(ResponseModel("OsworldExecuteResult", [
    F("status", Enum(["success", "error"], typed=False), required=True), F("output", Str(), required=True),
    F("error", Str(), required=True), F("returncode", Nullable(Int()), required=True),
]), OsworldExecuteResult)
# run_python also answers need_more (always false), which OSWorld's clients do not read.
PYTHON_RESULT = ResponseModel("OsworldPythonResult", [
    F("status", Enum(["success", "error"], typed=False)), F("message", Str()),
    F("output", Str()), F("error", Str()), F("return_code", Nullable(Int())),
])


def osworld_argv(command: str | list[str], shell: bool) -> list[str]:
    """The argv OSWorld's server would run: ``~/`` arguments expanded, a shell list's first item
    is the script (its others are $0...)."""
    if isinstance(command, list):
        if shell:
            return ["/bin/sh", "-c", *command]
        return argv_of([os.path.expanduser(arg) if arg.startswith("~/") else arg for arg in command],
                       shell=False)
    return argv_of(command, shell)


def _env(request: web.Request) -> dict[str, str]:
    return environment(request.app[app_keys.SETTINGS].display, None)


async def run_argv(request: web.Request, argv: list[str], timeout: float, *,
                   cwd: str | None = None) -> CommandOutput:
    """desktopd's runner; a program that cannot start is OSWorld's error shape, not a 422."""
    try:
        return await processes.run(argv, cwd=cwd, env=_env(request), stdin=None, timeout=timeout,
                                   max_output=DEFAULT_OUTPUT_CAP)
    except processes.CommandError as exc:
        return {"exit_code": None, "stdout": "", "stderr": exc.detail, "timed_out": False}


async def execute(request: web.Request) -> web.Response:
    body = await body_fields(request, EXECUTE_BODY)
    result = await run_argv(request, osworld_argv(body["command"], body["shell"]), EXECUTE_TIMEOUT_S)
    return EXECUTE_RESULT.response({"status": "success" if result["exit_code"] is not None else "error",
                                    "output": result["stdout"], "error": result["stderr"],
                                    "returncode": result["exit_code"]})


async def launch(request: web.Request) -> web.Response:
    body = await body_fields(request, EXECUTE_BODY)
    argv = osworld_argv(body["command"], body["shell"])
    try:
        await processes.detach(argv, cwd=None, env=_env(request),
                               log_dir=request.app[app_keys.SETTINGS].app_log_dir)
    except processes.CommandError as exc:
        raise invalid("command", exc.detail) from None
    shown = body["command"] if body["shell"] or isinstance(body["command"], str) else " ".join(body["command"])
    return web.Response(text=f"{shown} launched successfully")


async def run_python(request: web.Request) -> web.Response:
    body = await body_fields(request, PYTHON_BODY)
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="osworld-", delete=False) as script:
        script.write(body["code"])
    try:
        result = await run_argv(request, ["python3", script.name], PYTHON_TIMEOUT_S)
    finally:
        os.unlink(script.name)
    out, err, code = result["stdout"], result["stderr"], result["exit_code"]
    if code != 0 and not err:
        err = "Execution timeout: Code took too long to execute" if result["timed_out"] \
            else f"Process exited with code {code}"
    message = "\n".join(part for part in (out, err) if part)
    return web.json_response({"status": "success" if code == 0 else "error", "message": message,
                              "need_more": False, "output": out, "error": err, "return_code": code})


async def run_bash_script(request: web.Request) -> web.Response:
    body = await body_fields(request, BASH_BODY)
    cwd = os.path.expanduser(body["working_dir"]) if body["working_dir"] else None
    if cwd is not None and not os.path.isdir(cwd):
        raise invalid("working_dir", f"not a directory: {cwd!r}")
    # OSWorld's server merges stderr into the output; 2>&1 inside keeps the order of both.
    result = await run_argv(request, ["/bin/bash", "-c", 'exec 2>&1\n' + body["script"]],
                            float(body["timeout"]), cwd=cwd)
    code = -1 if result["timed_out"] else result["exit_code"]
    output = result["stdout"] + (f"Script execution timed out after {body['timeout']} seconds"
                                 if result["timed_out"] else "")
    return EXECUTE_RESULT.response({"status": "success" if code == 0 else "error", "output": output,
                                    "error": "", "returncode": code})
