"""The sidecar's settings: CLI flags first, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from httpapi.daemon import is_loopback, server_problem, truthy
from httpapi.deadlines import add_deadline_arguments, deadline_arguments, deadline_problem
from httpapi.guard import add_guard_arguments, guard_arguments, guard_problem
from httpapi.middlewares import read_token

from .browser.launcher import LaunchOptions, default_chromium_path, parse_flags
from .layout.output.options import BOUNDS_SPACES, TAB_ORDERS
from .browser.url_policy import default_file_roots

DEFAULT_PORT = 8122
# The start pages (start_pages.py): on loopback only, a port of their own so that no page of
# theirs shares an origin with the API (the browser guard lets same-origin requests through).
DEFAULT_START_PAGES_PORT = 8124
# /layout's optimisations, each switchable (sidecar/layout/reading/readers.py; "refresh": the background
# read after a page's change, refresh.py). The whole read, ?fresh=true's, is always there.
LAYOUT_STRATEGIES = ("reuse", "rescan", "patch", "frames", "refresh")
# Strategies that were dropped, and why: an operator's setting that still names one keeps
# starting the sidecar (the word is ignored, with a warning).
REMOVED_LAYOUT_STRATEGIES = {
    "sections": "its Accessibility.queryAXTree reads could go unanswered when a navigation "
                "committed, and Chromium's renderer then crashed",
}

log = logging.getLogger("sidecar.settings")


class SettingsError(ValueError):
    """A setting that cannot work; __main__ prints it and exits with status 2."""


@dataclass(frozen=True)
class Settings:
    urls: tuple[str, ...] = ()
    display: str | None = ":0"
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = field(default=None, repr=False)   # never printed in logs
    insecure: bool = False
    chromium_path: str = "chromium"
    headless: bool = False
    kiosk: bool = False
    app_mode: bool = False
    window_size: tuple[int, int] | None = None            # None: the display's size
    window_position: tuple[int, int] = (0, 0)
    chromium_flags: tuple[str, ...] = ()
    cdp_port: int | None = None                    # None: CDP on a private random port
    cdp_timeout: float = 10.0
    launch_timeout: float = 30.0
    restart_backoff: float = 0.5                          # first delay; doubles up to the max
    restart_backoff_max: float = 30.0
    log_level: str = "INFO"
    accessibility: bool = False                           # expose Chromium's tree on AT-SPI
    # Extra Host names and page Origins the browser guard accepts (httpapi/guard.py).
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    # Seconds a client has for a request's headers and its body (httpapi/deadlines.py).
    header_deadline: float = 10.0
    body_deadline: float = 30.0
    # Directories whose files the API may open as file: URLs (url_policy.py).
    file_roots: tuple[str, ...] = ()
    # Reload a tab whose renderer crashed (crash_recovery.py).
    recover_crashed_tabs: bool = True
    # How POST /reset makes a fresh browser when the request does not say (request_models.ISOLATION).
    reset_isolation: str = "context"
    # How long a request waits for one tab before reporting it unresponsive (tab_health.py).
    tab_budget: float = 8.0
    # /layout's defaults for ?bounds= and ?order= (for harnesses that cannot change their URLs).
    bounds_space: str = "document"
    tab_order: str = "front"
    layout_strategies: tuple[str, ...] = LAYOUT_STRATEGIES
    # Chromium's DevTools endpoint through a token-checked proxy on this address (cdp_proxy.py).
    expose_cdp: tuple[str, int] | None = None
    # POST /playwright runs Python code against the browser (playwright_exec.py).
    playwright: bool = True
    # The agent contract (sidecar/agent): desktopd for visible-mode input (None: visible mode
    # answers 503 saying so), where downloads go, and whether POST /act may run page scripts.
    desktopd_url: str | None = None
    desktopd_token: str | None = field(default=None, repr=False)
    downloads_dir: str = os.path.join(tempfile.gettempdir(), "sidecar-downloads")
    agent_evaluate: bool = True
    # Where named profiles live (POST /reset {"profile"}; sidecar/state/profiles.py).
    profiles_dir: str | None = None
    # A directory of static pages served on 127.0.0.1:start_pages_port for start URLs
    # (start_pages.py); None: not served.
    start_pages_dir: str | None = None
    start_pages_port: int = DEFAULT_START_PAGES_PORT

    def check(self) -> None:
        problem = server_problem(
            self.host, self.port, self.token, self.insecure, self.log_level,
            "set SIDECAR_TOKEN / SIDECAR_TOKEN_FILE (or DESKTOPD_TOKEN / DESKTOPD_TOKEN_FILE), or "
            "pass --insecure / SIDECAR_INSECURE=1 if the network is trusted")
        if problem:
            raise SettingsError(problem)
        problem = guard_problem(self.allowed_hosts, self.allowed_origins) or \
            deadline_problem(self.header_deadline, self.body_deadline)
        if problem:
            raise SettingsError(problem)
        if self.bounds_space not in BOUNDS_SPACES:
            raise SettingsError(f"the bounds space must be one of {', '.join(BOUNDS_SPACES)}, "
                                f"got {self.bounds_space!r}")
        if self.tab_order not in TAB_ORDERS:
            raise SettingsError(f"the tab order must be one of {', '.join(TAB_ORDERS)}, got {self.tab_order!r}")
        unknown = [name for name in self.layout_strategies if name not in LAYOUT_STRATEGIES]
        if unknown:
            raise SettingsError(f"unknown layout strategies {', '.join(unknown)}; known: "
                                f"{', '.join(LAYOUT_STRATEGIES)}")
        if self.expose_cdp is not None:
            host, port = self.expose_cdp
            if not 1 <= port <= 65535:
                raise SettingsError(f"the exposed CDP port must be 1..65535, got {port}")
            if self.token is None and not self.insecure and not is_loopback(host):
                raise SettingsError(f"exposing CDP on {host} needs a token (SIDECAR_TOKEN or "
                                    "SIDECAR_TOKEN_FILE): anyone who reaches it controls the browser")
        if self.start_pages_dir is not None and not 1 <= self.start_pages_port <= 65535:
            raise SettingsError(f"the start pages' port must be 1..65535, got {self.start_pages_port}")
        if self.start_pages_dir is not None and not os.path.isdir(self.start_pages_dir):
            raise SettingsError(f"the start pages' directory {self.start_pages_dir!r} is not a directory")
        if self.cdp_port is not None and not 1 <= self.cdp_port <= 65535:
            raise SettingsError(f"the CDP port must be 1..65535, got {self.cdp_port}")
        if not self.headless and not self.display:
            raise SettingsError("no X display: pass --display / set DISPLAY, or use --headless")
        if self.cdp_timeout <= 0 or self.launch_timeout <= 0 or self.tab_budget <= 0:
            raise SettingsError("timeouts must be positive")
        if not 0 < self.restart_backoff <= self.restart_backoff_max:
            raise SettingsError(f"the restart backoff must be in (0, {self.restart_backoff_max}] s")

    def launch_options(self, window_size: tuple[int, int] | None) -> LaunchOptions:
        return LaunchOptions(
            chromium_path=self.chromium_path, display=self.display, headless=self.headless,
            kiosk=self.kiosk, app_mode=self.app_mode, window_size=window_size,
            window_position=self.window_position, extra_flags=self.chromium_flags,
            cdp_port=self.cdp_port or 0, start_timeout=self.launch_timeout,
            accessibility=self.accessibility)





def default_profiles_dir(env: Mapping[str, str]) -> str:
    data_home = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data_home, "desktopd", "profiles")


def _pair(text: str, name: str, separators: str) -> tuple[int, int]:
    for sep in separators:
        if sep in text:
            first, _, second = text.partition(sep)
            try:
                return int(first), int(second)
            except ValueError:
                break
    raise SettingsError(f"{name} must look like W{separators[0]}H, got {text!r}")


def _address(text: str) -> tuple[str, int]:
    """[HOST:]PORT (HOST may be a bracketed IPv6 address) as (host, port); host 127.0.0.1."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        return host, int(port)
    except ValueError:
        raise SettingsError(f"the exposed CDP address must look like [HOST:]PORT, got {text!r}") from None


def _desktopd_token(env: Mapping[str, str]) -> str | None:
    """desktopd's bearer token: SIDECAR_DESKTOPD_TOKEN, else desktopd's own settings."""
    try:
        return (read_token(env.get("SIDECAR_DESKTOPD_TOKEN"), env.get("SIDECAR_DESKTOPD_TOKEN_FILE"))
                or read_token(env.get("DESKTOPD_TOKEN"), env.get("DESKTOPD_TOKEN_FILE")))
    except OSError as exc:
        raise SettingsError(f"cannot read desktopd's token file: {exc}") from None


def _number(raw: str | None, name: str, default: float, kind: type = float) -> float:
    if raw in (None, ""):
        return default
    try:
        return kind(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from None


def _strategies(text: str) -> tuple[str, ...]:
    """The layout strategies a comma-separated list names ("none": none); a removed one is
    left out with a warning, so that an old setting still starts the sidecar."""
    names = [name.strip().lower() for name in text.split(",")]
    names = [name for name in names if name and name != "none"]
    for name in dict.fromkeys(name for name in names if name in REMOVED_LAYOUT_STRATEGIES):
        log.warning("layout strategy %r was removed and is ignored: %s", name,
                    REMOVED_LAYOUT_STRATEGIES[name])
    return tuple(name for name in names if name not in REMOVED_LAYOUT_STRATEGIES)


def parse_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(
        prog="python -m sidecar",
        description="Launch Chromium on the desktop and serve its tabs' structure over HTTP")
    parser.add_argument("urls", nargs="*", metavar="URL",
                        help="start URLs, opened as tabs in this order (env SIDECAR_URLS, "
                             "space-separated; default about:blank)")
    parser.add_argument("--display", default=env.get("DISPLAY") or ":0",
                        help="X display Chromium shows on (env DISPLAY; default :0)")
    parser.add_argument("--host", default=env.get("SIDECAR_HOST") or "127.0.0.1",
                        help="address to listen on (env SIDECAR_HOST; default 127.0.0.1)")
    parser.add_argument("--port", default=None,
                        help=f"port to listen on (env SIDECAR_PORT; default {DEFAULT_PORT})")
    parser.add_argument("--token-file", default=None,
                        help="file holding the bearer token (env SIDECAR_TOKEN_FILE; fallbacks "
                             "SIDECAR_TOKEN, DESKTOPD_TOKEN, DESKTOPD_TOKEN_FILE)")
    parser.add_argument("--insecure", action="store_true", default=truthy(env.get("SIDECAR_INSECURE")),
                        help="allow a non-loopback address without a token (env SIDECAR_INSECURE=1)")
    parser.add_argument("--chromium", default=env.get("CHROMIUM_PATH") or None,
                        help="Chromium executable (env CHROMIUM_PATH; default the system chromium)")
    parser.add_argument("--headless", action="store_true", default=truthy(env.get("SIDECAR_HEADLESS")),
                        help="no window, no display needed (env SIDECAR_HEADLESS=1)")
    parser.add_argument("--kiosk", action="store_true", default=truthy(env.get("SIDECAR_KIOSK")),
                        help="full-screen kiosk window without browser UI (env SIDECAR_KIOSK=1)")
    parser.add_argument("--app", action="store_true", default=truthy(env.get("SIDECAR_APP")),
                        help="open the first URL as an app window without tabs and address bar "
                             "(env SIDECAR_APP=1)")
    parser.add_argument("--window-size", default=env.get("SIDECAR_WINDOW_SIZE") or None,
                        help="WxH of the browser window (env SIDECAR_WINDOW_SIZE; default the "
                             "display's size, 1280x800 when headless)")
    parser.add_argument("--window-position", default=env.get("SIDECAR_WINDOW_POSITION") or "0,0",
                        help="X,Y of the window's top-left corner (env SIDECAR_WINDOW_POSITION)")
    parser.add_argument("--chromium-flag", action="append", default=[], dest="chromium_flags",
                        help="an extra Chromium flag, repeatable (plus env CHROMIUM_FLAGS, "
                             "shell-split)")
    parser.add_argument("--cdp-port", default=env.get("SIDECAR_CDP_PORT") or None, metavar="PORT",
                        help="give Chromium's own CDP this fixed port on 127.0.0.1, unauthenticated, "
                             "for other tools of this machine (env SIDECAR_CDP_PORT; default: a "
                             "private random port)")
    parser.add_argument("--expose-cdp", default=env.get("SIDECAR_EXPOSE_CDP") or None,
                        metavar="[HOST:]PORT",
                        help="serve Chromium's DevTools endpoint (/json/*, /devtools/*) on this port "
                             "through a proxy that checks the token (env SIDECAR_EXPOSE_CDP; HOST "
                             "defaults to 127.0.0.1; a non-loopback HOST needs a token)")
    parser.add_argument("--bounds-space", default=(env.get("SIDECAR_BOUNDS_SPACE") or "document").lower(),
                        help="the space of /layout's bounds unless ?bounds= says: document, viewport "
                             "or screen (env SIDECAR_BOUNDS_SPACE; default document)")
    parser.add_argument("--tab-order", default=(env.get("SIDECAR_TAB_ORDER") or "front").lower(),
                        help="/layout's tab order unless ?order= says: front (the tab in front "
                             "first) or strip (env SIDECAR_TAB_ORDER; default front)")
    parser.add_argument("--layout-strategies", default=env.get("SIDECAR_LAYOUT_STRATEGIES") or None,
                        help="/layout's optimisations to use, comma-separated, from "
                             f"{','.join(LAYOUT_STRATEGIES)} (env SIDECAR_LAYOUT_STRATEGIES; default "
                             "all; none: every request reads its tabs whole, as ?fresh=true does)")
    parser.add_argument("--cdp-timeout", default=env.get("SIDECAR_CDP_TIMEOUT") or None,
                        help="seconds a CDP call may take (env SIDECAR_CDP_TIMEOUT; default 10)")
    parser.add_argument("--restart-backoff", default=env.get("SIDECAR_RESTART_BACKOFF") or None,
                        help="seconds before the first restart of a dead Chromium; doubles on each "
                             "failure up to 30 s (env SIDECAR_RESTART_BACKOFF; default 0.5)")
    parser.add_argument("--log-level", default=(env.get("SIDECAR_LOG_LEVEL") or "INFO").upper(),
                        type=str.upper, help="DEBUG, INFO, WARNING or ERROR (env SIDECAR_LOG_LEVEL)")
    parser.add_argument("--accessibility", action="store_true",
                        default=truthy(env.get("SIDECAR_ACCESSIBILITY")),
                        help="expose the browser's UI and pages on the AT-SPI bus, for desktopd's "
                             "/api/v1/accessibility (env SIDECAR_ACCESSIBILITY=1)")
    parser.add_argument("--file-root", action="append", dest="file_roots",
                        default=[root for root in (env.get("SIDECAR_FILE_ROOTS") or "").split(":") if root],
                        help="a directory whose files POST /tabs and navigate may open as file: URLs, "
                             "repeatable (env SIDECAR_FILE_ROOTS, colon-separated; default: the "
                             "directories of file: start URLs and --start-pages)")
    parser.add_argument("--no-tab-recovery", action="store_false", dest="recover_crashed_tabs",
                        default=truthy(env.get("SIDECAR_RECOVER_TABS", "1")),
                        help="leave a tab whose renderer crashed as it is instead of reloading it "
                             "(env SIDECAR_RECOVER_TABS=0)")
    parser.add_argument("--reset-isolation", choices=("context", "process"),
                        default=env.get("SIDECAR_RESET_ISOLATION") or "context",
                        help="how POST /reset makes a fresh browser when the request does not say: "
                             "context (a new browser context, no launch) or process (a new Chromium "
                             "on a fresh on-disk profile) (env SIDECAR_RESET_ISOLATION)")
    parser.add_argument("--tab-budget", default=env.get("SIDECAR_TAB_BUDGET") or None,
                        help="seconds a request waits for one tab before it reports that tab "
                             "unresponsive and answers for the others (env SIDECAR_TAB_BUDGET; default 8)")
    parser.add_argument("--no-playwright", action="store_false", dest="playwright",
                        default=truthy(env.get("SIDECAR_PLAYWRIGHT", "1")),
                        help="refuse POST /playwright, which runs the caller's Python code in this "
                             "container against the browser (env SIDECAR_PLAYWRIGHT=0)")
    parser.add_argument("--desktopd-url", default=env.get("SIDECAR_DESKTOPD_URL") or None,
                        help="desktopd's URL, for POST /act's visible mode (real pointer and keyboard "
                             "through XTEST) (env SIDECAR_DESKTOPD_URL; the image sets "
                             "http://127.0.0.1:8080; unset: visible mode answers 503)")
    parser.add_argument("--downloads-dir", default=env.get("SIDECAR_DOWNLOADS_DIR") or None,
                        help="directory downloads are saved in, listed by GET /downloads (env "
                             "SIDECAR_DOWNLOADS_DIR; default $TMPDIR/sidecar-downloads)")
    parser.add_argument("--no-agent-evaluate", action="store_false", dest="agent_evaluate",
                        default=truthy(env.get("SIDECAR_AGENT_EVALUATE", "1")),
                        help="refuse POST /act's evaluate kind (env SIDECAR_AGENT_EVALUATE=0)")
    parser.add_argument("--profiles-dir", default=env.get("SIDECAR_PROFILES_DIR") or None,
                        help="directory of the named browser profiles POST /reset {\"profile\"} "
                             "starts Chromium on (env SIDECAR_PROFILES_DIR; default "
                             "$XDG_DATA_HOME/desktopd/profiles, i.e. ~/.local/share/...)")
    parser.add_argument("--start-pages", default=env.get("SIDECAR_START_PAGES") or None, metavar="DIR",
                        help="serve this directory's files over http on 127.0.0.1 (the port of "
                             "--start-pages-port), for start URLs every CDP client accepts, unlike "
                             "file: (env SIDECAR_START_PAGES; the images: /usr/share/desktopd)")
    parser.add_argument("--start-pages-port", default=env.get("SIDECAR_START_PAGES_PORT") or None,
                        metavar="PORT", help="the start pages' port on 127.0.0.1 (env "
                        f"SIDECAR_START_PAGES_PORT; default {DEFAULT_START_PAGES_PORT})")
    add_guard_arguments(parser, env)
    add_deadline_arguments(parser, env)
    args = parser.parse_args(argv)

    urls = tuple(args.urls) or tuple((env.get("SIDECAR_URLS") or "").split())
    try:
        token = (read_token(env.get("SIDECAR_TOKEN"), args.token_file or env.get("SIDECAR_TOKEN_FILE"))
                 or read_token(env.get("DESKTOPD_TOKEN"), env.get("DESKTOPD_TOKEN_FILE")))
    except OSError as exc:
        raise SettingsError(f"cannot read the token file: {exc}") from None
    try:
        extra_flags = parse_flags(env.get("CHROMIUM_FLAGS")) + tuple(args.chromium_flags)
    except ValueError as exc:
        raise SettingsError(f"CHROMIUM_FLAGS cannot be split like a shell would: {exc}") from None
    expose = args.cdp_port
    settings = Settings(
        urls=urls, display=args.display, host=args.host,
        port=int(_number(args.port or env.get("SIDECAR_PORT"), "port", DEFAULT_PORT, int)),
        token=token, insecure=args.insecure,
        chromium_path=args.chromium or default_chromium_path(),
        headless=args.headless, kiosk=args.kiosk, app_mode=args.app,
        window_size=_pair(args.window_size, "window size", "x,") if args.window_size else None,
        window_position=_pair(args.window_position, "window position", ",x"),
        chromium_flags=extra_flags,
        cdp_port=int(_number(expose, "CDP port", 0, int)) if expose else None,
        cdp_timeout=_number(args.cdp_timeout, "CDP timeout", 10.0),
        restart_backoff=_number(args.restart_backoff, "restart backoff", 0.5),
        log_level=args.log_level, accessibility=args.accessibility,
        # By default the start pages' directory: a client opened them as file: URLs before the
        # images served them over http, and still may.
        file_roots=tuple(args.file_roots) or (default_file_roots(urls) + ((args.start_pages,) if args.start_pages else ())),
        recover_crashed_tabs=args.recover_crashed_tabs,
        reset_isolation=args.reset_isolation,
        tab_budget=_number(args.tab_budget, "tab budget", 8.0),
        bounds_space=args.bounds_space, tab_order=args.tab_order,
        layout_strategies=LAYOUT_STRATEGIES if args.layout_strategies is None else _strategies(
            args.layout_strategies),
        expose_cdp=_address(args.expose_cdp) if args.expose_cdp else None,
        playwright=args.playwright,
        desktopd_url=args.desktopd_url.rstrip("/") if args.desktopd_url else None,
        desktopd_token=_desktopd_token(env),
        downloads_dir=args.downloads_dir or Settings.downloads_dir,
        agent_evaluate=args.agent_evaluate,
        profiles_dir=args.profiles_dir or default_profiles_dir(env),
        start_pages_dir=args.start_pages,
        start_pages_port=int(_number(args.start_pages_port, "start pages' port", DEFAULT_START_PAGES_PORT, int)),
        **guard_arguments(args), **deadline_arguments(args))
    settings.check()
    return settings
