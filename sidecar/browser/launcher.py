"""Start one Chromium process with CDP on loopback, and stop it (with everything it spawned).

The browser's WebSocket URL is read from its own ``DevTools listening on ws://...`` line on stderr
(``--remote-debugging-port=0`` lets the kernel pick a free port: no race, no guessing). Chromium
runs in its own process group, and PR_SET_PDEATHSIG makes the kernel kill it if the sidecar dies
without cleaning up (even with SIGKILL), so no orphaned browser outlives the service.
"""

from __future__ import annotations

import asyncio
import collections
import ctypes
import logging
import os
import re
import shlex
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from httpapi.bounded import within

log = logging.getLogger(__name__)

_DEVTOOLS_LINE = re.compile(rb"DevTools listening on (ws://\S+)")
_PR_SET_PDEATHSIG = 1

# Flags every sidecar Chromium gets. Why each group:
CONTAINER_FLAGS = (
    # containers have no user namespaces for the sandbox, no GPU, a tiny /dev/shm
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    # --no-sandbox otherwise shows an "unsupported command-line flag" infobar that shifts the page
    "--test-type",
    # no network chatter the harness did not ask for (and no QUIC, which proxies cannot see)
    "--disable-quic", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-domain-reliability", "--no-pings", "--metrics-recording-only",
    "--disable-client-side-phishing-detection", "--disable-breakpad",
    # no first-run UI, popups or bubbles covering the page an agent is looking at
    "--no-first-run", "--no-default-browser-check", "--disable-default-apps",
    "--disable-session-crashed-bubble", "--hide-crash-restore-bubble", "--noerrdialogs",
    "--disable-search-engine-choice-screen", "--disable-prompt-on-repost",
    "--deny-permission-prompts", "--password-store=basic", "--disable-hang-monitor",
    # background/occluded tabs keep running and painting: an agent may read any tab at any time
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    # The GPU (software compositing here) and network services in the browser process: without a
    # sandbox their own processes isolate nothing, and each cost ~8 MiB (docs/benchmarks.md).
    # Renderers stay one per site.
    "--in-process-gpu",
)
ENABLED_FEATURES = ("NetworkServiceInProcess2",)
DISABLED_FEATURES = (
    "Translate", "MediaRouter", "DialMediaRouteProvider", "OptimizationHints",
    "AutofillServerCommunication", "CertificateTransparencyComponentUpdater",
    "InterestFeedContentSuggestions", "PrivacySandboxSettings4", "HttpsUpgrades",
    # The omnibox's WebUI popups keep a preloaded renderer (~50 MiB) for a list nobody opens;
    # without them Chromium draws its native popup (docs/benchmarks.md, memory).
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup",
)


class LaunchError(RuntimeError):
    """Chromium did not start or did not open its DevTools endpoint; includes its stderr."""


@dataclass(frozen=True)
class LaunchOptions:
    chromium_path: str = "chromium"
    display: str | None = None                 # X display (ignored when headless)
    headless: bool = False
    kiosk: bool = False
    app_mode: bool = False                     # --app=<first URL>: a window without browser UI
    window_size: tuple[int, int] | None = None
    window_position: tuple[int, int] = (0, 0)
    extra_flags: tuple[str, ...] = ()
    cdp_port: int = 0                          # 0: a free port picked by the kernel
    start_timeout: float = 30.0
    # On the AT-SPI bus: the env var makes Chromium register its tree there at all (it otherwise
    # waits for a screen reader), the flag builds the pages' trees from the start (without it the
    # cache holds only the windows).
    accessibility: bool = False


def chromium_command(options: LaunchOptions, user_data_dir: str, url: str | None) -> list[str]:
    """The full command line. Only one URL: headless Chromium refuses several, so the others are
    opened over CDP once connected (which also fixes their tab order)."""
    disabled, enabled = list(DISABLED_FEATURES), list(ENABLED_FEATURES)
    extra: list[str] = []
    for flag in options.extra_flags:
        # Chromium honours only the last --disable-features (and --enable-features): merge the
        # user's into ours.
        if flag.startswith("--disable-features="):
            disabled.extend(f for f in flag.split("=", 1)[1].split(",") if f)
        elif flag.startswith("--enable-features="):
            enabled.extend(f for f in flag.split("=", 1)[1].split(",") if f)
        else:
            extra.append(flag)
    cmd = [
        options.chromium_path, *CONTAINER_FLAGS,
        f"--disable-features={','.join(dict.fromkeys(disabled))}",
        f"--enable-features={','.join(dict.fromkeys(f for f in enabled if f not in disabled))}",
        f"--user-data-dir={user_data_dir}",
        f"--remote-debugging-port={options.cdp_port}", "--remote-debugging-address=127.0.0.1",
        "--window-position={},{}".format(*options.window_position),
    ]
    if options.window_size is not None:
        cmd.append("--window-size={},{}".format(*options.window_size))
    if options.headless:
        cmd.append("--headless=new")
    if options.kiosk:
        cmd.append("--kiosk")
    if options.accessibility:
        cmd.append("--force-renderer-accessibility")
    cmd.extend(extra)
    start = url or "about:blank"
    cmd.append(f"--app={start}" if options.app_mode else start)
    return cmd


def parse_flags(text: str | None) -> tuple[str, ...]:
    """CHROMIUM_FLAGS as a shell would split it."""
    return tuple(shlex.split(text)) if text else ()


def _death_signal_setter() -> Callable[[], None]:
    """A preexec_fn that makes the kernel SIGKILL the child when the parent thread dies.

    libc is loaded here, in the parent: between fork and exec only the already-resolved
    function is called, because dlopen in a forked child of a threaded process can deadlock."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def set_death_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return set_death_signal


@dataclass
class ChromiumProcess:
    """A running Chromium. ``ws_url`` is its browser-level CDP endpoint."""

    process: asyncio.subprocess.Process
    ws_url: str
    command: list[str]
    stderr_tail: collections.deque = field(default_factory=lambda: collections.deque(maxlen=40))
    _drain: asyncio.Task | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def recent_stderr(self, lines: int = 10) -> str:
        return "\n".join(list(self.stderr_tail)[-lines:])

    async def wait(self) -> int:
        code = await self.process.wait()
        _kill_group(self.process.pid, signal.SIGKILL)   # renderers/zygote left behind, if any
        return code

    async def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM the whole group, SIGKILL it after ``timeout`` s; always reaps the browser."""
        if self.process.returncode is None:
            _kill_group(self.process.pid, signal.SIGTERM)
            try:
                await within(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                log.warning("Chromium %d ignored SIGTERM for %.0f s; killing it", self.pid, timeout)
                _kill_group(self.process.pid, signal.SIGKILL)
                await self.process.wait()
        _kill_group(self.process.pid, signal.SIGKILL)
        if self._drain is not None:
            self._drain.cancel()
            try:
                await self._drain
            except asyncio.CancelledError:
                pass


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def launch(options: LaunchOptions, user_data_dir: str, url: str | None = None,
                 env: dict[str, str] | None = None) -> ChromiumProcess:
    """Start Chromium and return once its DevTools endpoint is listening (or raise LaunchError)."""
    cmd = chromium_command(options, user_data_dir, url)
    child_env = dict(os.environ if env is None else env)
    if not options.headless and options.display:
        child_env["DISPLAY"] = options.display
    if options.accessibility:
        child_env["ACCESSIBILITY_ENABLED"] = "1"
        child_env.pop("NO_AT_BRIDGE", None)
    try:
        process = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, env=child_env, start_new_session=True,
            preexec_fn=_death_signal_setter())
    except OSError as exc:
        raise LaunchError(f"cannot execute {options.chromium_path!r}: {exc}") from exc
    chromium = ChromiumProcess(process=process, ws_url="", command=cmd)
    try:
        chromium.ws_url = await within(_read_ws_url(chromium), options.start_timeout)
    except asyncio.TimeoutError:
        await chromium.stop()
        raise LaunchError(f"Chromium did not open its DevTools endpoint within "
                          f"{options.start_timeout} s; its stderr ends with:\n"
                          f"{chromium.recent_stderr()}") from None
    except BaseException:   # LaunchError, cancellation: never leave a half-started browser
        await chromium.stop()
        raise
    # Keep reading stderr: a full pipe would block Chromium, and the tail explains crashes.
    chromium._drain = asyncio.get_running_loop().create_task(_drain_stderr(chromium))
    log.info("Chromium %d listening on %s", chromium.pid, chromium.ws_url)
    return chromium


async def _read_ws_url(chromium: ChromiumProcess) -> str:
    stream = chromium.process.stderr
    if stream is None:
        raise LaunchError("Chromium was started without a stderr pipe")
    while True:
        line = await stream.readline()
        if not line:
            code = await chromium.process.wait()
            raise LaunchError(f"Chromium exited with status {code} before opening its DevTools "
                              f"endpoint; its stderr ends with:\n{chromium.recent_stderr()}")
        match = _DEVTOOLS_LINE.search(line)
        if match:
            return match.group(1).decode()
        _remember(chromium, line)


async def _drain_stderr(chromium: ChromiumProcess) -> None:
    stream = chromium.process.stderr
    if stream is None:
        return
    while True:
        line = await stream.readline()
        if not line:
            return
        _remember(chromium, line)


def _remember(chromium: ChromiumProcess, line: bytes) -> None:
    text = line.decode("utf-8", "replace").rstrip()
    # D-Bus complaints are constant noise in containers; keep the tail for real errors.
    if text and "dbus" not in text.lower():
        chromium.stderr_tail.append(text)


def default_chromium_path(candidates: Sequence[str] = ("chromium", "chromium-browser",
                                                       "google-chrome")) -> str:
    import shutil

    for name in candidates:
        found = shutil.which(name)
        if found:
            return found
    return candidates[0]
