"""After desktopd's reset, with OSWorld's API on: Chrome's place as OSWorld's tasks reach it.

The reset puts the browser on a fresh profile; OSWorld's getters read its files at
~/.config/google-chrome, a task's setup edits them there (jq on Preferences) and reaches the
browser over CDP through the forwards it opened (socat 9222 -> N -> the browser). The image's
`google-chrome` keeps those (images/chromium/rootfs/usr/local/bin/google-chrome); this runs its
`--desktopd-after-reset` so that all of them lead to the new browser before the reset answers,
and once at the desktop's start (OSWorld's API answers 503 until then: its clients wait for
/screenshot, and the first task's setup then finds what every later one finds)."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from collections.abc import Mapping

from desktopd.execute import processes
from desktopd.execute.handlers import environment
from desktopd.settings import Settings
from httpapi.errors import ApiError
from httpapi.json_types import JSONObject

PROGRAM = "google-chrome"
FLAG = "--desktopd-after-reset"
# The program waits at most 20 s for each step (the browser, its files, CDP on each forward).
TIMEOUT_S = 90.0
MAX_OUTPUT = 1 << 16
# At start the sidecar may take a while to start its browser on a loaded host (then the API
# answers anyway, as it is).
START_BUDGET_S = 90.0
RETRY_S = 1.0

log = logging.getLogger(__name__)


async def settle_chrome(settings: Settings, browser: Mapping[str, object] | None) -> JSONObject | None:
    """``browser``: the sidecar's reset answer (None: the browser was not reset). None when there
    is nothing to settle (OSWorld's API off, no sidecar, or no `google-chrome` in this image)."""
    program = shutil.which(PROGRAM)
    if not settings.osworld or not settings.sidecar_configured or browser is None or program is None:
        return None
    pid = browser.get("pid")
    argv = [program, f"{FLAG}={pid}" if isinstance(pid, int) else FLAG]
    try:
        result = await processes.run(argv, cwd=None, env=environment(settings.display, None), stdin=None,
                                     timeout=TIMEOUT_S, max_output=MAX_OUTPUT)
    except processes.CommandError as exc:
        raise ApiError(502, "chrome_not_settled", f"{PROGRAM} {FLAG}: {exc.detail}") from None
    if result["exit_code"] != 0:
        raise ApiError(502, "chrome_not_settled",
                       {"exit_code": result["exit_code"], "timed_out": result["timed_out"],
                        "stderr": result["stderr"][-2000:]})
    lines = result["stdout"].strip().splitlines()
    try:
        return dict(json.loads(lines[-1]))
    except (IndexError, ValueError):
        raise ApiError(502, "chrome_not_settled", {"stdout": result["stdout"][-2000:]}) from None


async def settle_at_start(settings: Settings) -> None:
    """At the desktop's start, what a reset does (the first task's setup meets the same state as
    every later one): retried while the sidecar starts its browser, at most START_BUDGET_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_BUDGET_S
    while True:
        try:
            await settle_chrome(settings, {})
            return
        except ApiError as exc:
            if loop.time() >= deadline:
                log.warning("Chrome's profile link was not settled at start: %s", exc.detail)
                return
        await asyncio.sleep(RETRY_S)
