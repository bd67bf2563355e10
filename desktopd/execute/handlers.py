"""POST /api/v1/execute: run a command (or launch a GUI app with detach) in the desktop session.

Runs on the event loop with asyncio subprocesses: never on the X thread, so a 10-minute build
does not stop clicks or screenshots."""

from __future__ import annotations

import os
import shlex

from aiohttp import web

from desktopd import app_keys
from desktopd.execute import processes
from desktopd.execute.models import ExecuteBody
from httpapi.errors import invalid


def argv_of(command: list[str] | str, shell: bool | None) -> list[str]:
    """The argv a command runs as: a list as it is, a string split like a shell (shell=false) or
    run by /bin/sh -c."""
    if isinstance(command, list):
        for i, arg in enumerate(command):
            if "\0" in arg:
                raise invalid(f"command[{i}]", "must not contain NUL characters")
        return command
    if "\0" in command:
        raise invalid("command", "must not contain NUL characters")
    if shell is False:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise invalid("command", f"cannot split it like a shell: {exc}") from None
        if not argv:
            raise invalid("command", "is empty after splitting")
        return argv
    return ["/bin/sh", "-c", command]


def environment(display: str, extra: dict[str, str] | None) -> dict[str, str]:
    env = {**os.environ, "DISPLAY": display}
    for secret in ("DESKTOPD_TOKEN", "DESKTOPD_TOKEN_FILE", "SIDECAR_TOKEN", "SIDECAR_TOKEN_FILE"):
        env.pop(secret, None)  # the daemons' secrets are not the commands' business
    for name, value in (extra or {}).items():
        if not name or "=" in name or "\0" in name:
            raise invalid(f"env.{name}", "a variable name must be non-empty, without '=' or NUL")
        if "\0" in value:
            raise invalid(f"env.{name}", "must not contain NUL characters")
        env[name] = value
    return env


async def execute(request: web.Request, body: ExecuteBody) -> web.Response:
    settings = request.app[app_keys.SETTINGS]
    argv = argv_of(body["command"], body["shell"])
    env = environment(settings.display, body["env"])
    result: processes.RunResult | processes.Detached
    try:
        if body["detach"]:
            result = await processes.detach(argv, cwd=body["cwd"], env=env,
                                            log_dir=settings.app_log_dir)
        else:
            stdin = body["stdin"].encode() if body["stdin"] is not None else None
            result = await processes.run(argv, cwd=body["cwd"], env=env, stdin=stdin,
                                         timeout=body["timeout"], max_output=body["max_output"])
    except processes.CommandError as exc:
        raise invalid(exc.field, exc.detail) from None
    return web.json_response(result)
