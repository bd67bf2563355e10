"""desktopd's settings: CLI flags first, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from desktopd.backend.protocol import BACKENDS
from desktopd.windows.models import TREE_FORMATS
from desktopd.recording.recorder import DEFAULT_RETENTION
from desktopd.vision.model_config import NO_MODELS, ModelConfigError, VisionModels, load_models
from httpapi.daemon import is_loopback, server_problem, truthy
from httpapi.deadlines import add_deadline_arguments, deadline_arguments, deadline_problem
from httpapi.guard import add_guard_arguments, guard_arguments, guard_problem
from httpapi.middlewares import read_token

DEFAULT_PORT = 8080
DEFAULT_OSWORLD_PORT = 5000


def osworld_problem(enabled: bool, host: str, insecure: bool, port: int) -> str | None:
    """OSWorld's client sends no token: its API is served only on loopback or where the user has
    declared the network trusted (DESKTOPD_INSECURE=1, which the images allow only when the ports
    are published on the host's loopback), whether or not desktopd's own API has a token."""
    if not enabled:
        return None
    if not 0 < port <= 65535:
        return f"DESKTOPD_OSWORLD_PORT must be 1..65535, got {port}"
    if is_loopback(host) or insecure:
        return None
    return (f"refusing DESKTOPD_OSWORLD=1 on non-loopback address {host!r}: OSWorld's API has no "
            "token; publish the ports on loopback and set DESKTOPD_INSECURE=1, or bind 127.0.0.1")


def default_recording_dir() -> str:
    return os.path.join(tempfile.gettempdir(), f"desktopd-recordings-{os.getuid()}")


class SettingsError(ValueError):
    """A setting that cannot work; __main__ prints it and exits with status 2."""


@dataclass(frozen=True)
class Settings:
    display: str = ":0"
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = field(default=None, repr=False)  # never printed in logs
    insecure: bool = False
    log_level: str = "INFO"
    # Where `execute` with detach=true writes the app's output (None: /dev/null).
    app_log_dir: str | None = None
    # The Chromium sidecar, for GET /api/v1/accessibility?merge=browser (its token: repr hidden).
    sidecar_url: str = "http://127.0.0.1:8122"
    sidecar_token: str | None = field(default=None, repr=False)
    # DESKTOPD_SIDECAR_URL given: POST /api/v1/reset resets the browser through it too.
    sidecar_configured: bool = False
    # Extra Host names and page Origins the browser guard accepts (httpapi/guard.py).
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    # GET /api/v1/tree's format when the request names none: desktopd or i3 (desktopd/windows/i3tree.py).
    tree_format: str = "desktopd"
    # Seconds a client has for a request's headers and its body (httpapi/deadlines.py).
    header_deadline: float = 10.0
    body_deadline: float = 30.0
    # Where POST /api/v1/recording/start writes its videos and ffmpeg's logs.
    recording_dir: str = field(default_factory=lambda: default_recording_dir())
    # Finished recordings are deleted this long after they stopped, and oldest first beyond this
    # many bytes together (recording/retention.py); a client deletes its own after download.
    recording_max_age: float = DEFAULT_RETENTION.max_age_s
    recording_max_bytes: int = DEFAULT_RETENTION.max_bytes
    # Which desktop desktopd drives (desktopd/backend/protocol.py): x11 (the display above) or sway (the
    # Wayland socket below, and Sway's IPC socket from SWAYSOCK or XDG_RUNTIME_DIR).
    backend: str = "x11"
    wayland_display: str = "wayland-1"

    # A window manager is part of this desktop (the images' XFCE): health says starting until it
    # runs and, when there are windows, one of them has the keyboard.
    window_manager: bool = False

    # OSWorld's VM-server API (desktopd/osworld/) on its own port: tokenless, so opt-in.
    osworld: bool = False
    osworld_port: int = DEFAULT_OSWORLD_PORT

    # The vision models POST /api/v1/vision/act may use (desktopd/vision/model_config.py).
    vision_models: VisionModels = NO_MODELS

    @property
    def backend_display(self) -> str:
        """The display the backend drives: the X display, or the Wayland socket's name."""
        return self.wayland_display if self.backend == "sway" else self.display

    def check(self) -> None:
        """Refuse configurations that would expose an unauthenticated desktop to the network."""
        problem = server_problem(
            self.host, self.port, self.token, self.insecure, self.log_level,
            "set DESKTOPD_TOKEN (or DESKTOPD_TOKEN_FILE), or pass --insecure / DESKTOPD_INSECURE=1 "
            "if the network is trusted")
        if problem:
            raise SettingsError(problem)
        if self.tree_format not in TREE_FORMATS:
            raise SettingsError(f"DESKTOPD_TREE_FORMAT must be one of {', '.join(TREE_FORMATS)}, "
                                f"got {self.tree_format!r}")
        if self.backend not in BACKENDS:
            raise SettingsError(f"DESKTOPD_BACKEND must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if not self.recording_max_age > 0:
            raise SettingsError(f"DESKTOPD_RECORDING_MAX_AGE must be more than 0 seconds, got {self.recording_max_age!r}")
        if not self.recording_max_bytes > 0:
            raise SettingsError(f"DESKTOPD_RECORDING_MAX_BYTES must be more than 0, got {self.recording_max_bytes!r}")
        problem = osworld_problem(self.osworld, self.host, self.insecure, self.osworld_port)
        if problem:
            raise SettingsError(problem)
        problem = guard_problem(self.allowed_hosts, self.allowed_origins) or \
            deadline_problem(self.header_deadline, self.body_deadline)
        if problem:
            raise SettingsError(problem)





def _number(flag: float | int | None, env: Mapping[str, str], name: str, kind: type, default: float | int):
    """The flag, else the environment variable (a SettingsError naming it when it is no number)."""
    if flag is not None:
        return flag
    raw = env.get(name)
    try:
        return kind(raw) if raw else default
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from None


def parse_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="python -m desktopd",
                                     description="HTTP service to see and drive an X11 desktop")
    parser.add_argument("--display", default=env.get("DISPLAY") or ":0",
                        help="X display to drive (env DISPLAY; default :0)")
    parser.add_argument("--host", default=env.get("DESKTOPD_HOST") or "127.0.0.1",
                        help="address to listen on (env DESKTOPD_HOST; default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None,
                        help=f"port to listen on (env DESKTOPD_PORT; default {DEFAULT_PORT})")
    parser.add_argument("--token-file", default=env.get("DESKTOPD_TOKEN_FILE"),
                        help="file holding the bearer token (env DESKTOPD_TOKEN wins over it)")
    parser.add_argument("--insecure", action="store_true", default=truthy(env.get("DESKTOPD_INSECURE")),
                        help="allow a non-loopback address without a token (env DESKTOPD_INSECURE=1)")
    parser.add_argument("--log-level", default=(env.get("DESKTOPD_LOG_LEVEL") or "INFO").upper(),
                        type=str.upper, help="DEBUG, INFO, WARNING or ERROR (env DESKTOPD_LOG_LEVEL)")
    parser.add_argument("--app-log-dir", default=env.get("DESKTOPD_APP_LOG_DIR"),
                        help="directory for detached apps' output (env DESKTOPD_APP_LOG_DIR; "
                             "default: discard it)")
    parser.add_argument("--sidecar-url", default=env.get("DESKTOPD_SIDECAR_URL") or None,
                        help="the Chromium sidecar whose /layout ?merge=browser reads (env "
                             "DESKTOPD_SIDECAR_URL, default http://127.0.0.1:8122 for reading; "
                             "POST /api/v1/reset uses it only when set; token: DESKTOPD_SIDECAR_TOKEN, "
                             "else SIDECAR_TOKEN / SIDECAR_TOKEN_FILE, else desktopd's own)")
    parser.add_argument("--tree-format", choices=TREE_FORMATS,
                        default=(env.get("DESKTOPD_TREE_FORMAT") or "desktopd").strip().lower(),
                        help="GET /api/v1/tree's format when a request names none: desktopd or i3 "
                             "(env DESKTOPD_TREE_FORMAT; default desktopd)")
    parser.add_argument("--recording-dir", default=env.get("DESKTOPD_RECORDING_DIR") or default_recording_dir(),
                        help="directory for screen recordings (env DESKTOPD_RECORDING_DIR; default "
                             "desktopd-recordings-<uid> in the temp dir)")
    parser.add_argument("--recording-max-age", type=float, default=None,
                        help="seconds a finished recording is kept after it stopped (env "
                             f"DESKTOPD_RECORDING_MAX_AGE; default {DEFAULT_RETENTION.max_age_s:g})")
    parser.add_argument("--recording-max-bytes", type=int, default=None,
                        help="bytes all finished recordings may take; the oldest go first, the newest "
                             f"stays (env DESKTOPD_RECORDING_MAX_BYTES; default {DEFAULT_RETENTION.max_bytes})")
    parser.add_argument("--backend", default=(env.get("DESKTOPD_BACKEND") or "x11").strip().lower(),
                        help="the desktop to drive: x11 or sway (env DESKTOPD_BACKEND; default x11)")
    parser.add_argument("--wayland-display", default=env.get("WAYLAND_DISPLAY") or "wayland-1",
                        help="with --backend sway: the Wayland socket, a name in XDG_RUNTIME_DIR or "
                             "a path (env WAYLAND_DISPLAY; default wayland-1)")
    parser.add_argument("--window-manager", action="store_true",
                        default=truthy(env.get("DESKTOPD_WINDOW_MANAGER")),
                        help="a window manager belongs to this desktop: healthy once it runs and a "
                             "window has the keyboard (env DESKTOPD_WINDOW_MANAGER=1)")
    parser.add_argument("--osworld", action="store_true", default=truthy(env.get("DESKTOPD_OSWORLD")),
                        help="also serve OSWorld's VM-server API (no token; loopback or "
                             "--insecure only) (env DESKTOPD_OSWORLD=1)")
    parser.add_argument("--osworld-port", type=int, default=None,
                        help=f"its port (env DESKTOPD_OSWORLD_PORT; default {DEFAULT_OSWORLD_PORT})")
    parser.add_argument("--vision-models", default=env.get("DESKTOPD_VISION_MODELS") or None,
                        help="JSON file of the vision models POST /api/v1/vision/act may use (env "
                             "DESKTOPD_VISION_MODELS; default none: the route answers 503)")
    add_guard_arguments(parser, env)
    add_deadline_arguments(parser, env)
    args = parser.parse_args(argv)
    try:
        vision_models = load_models(args.vision_models)
    except ModelConfigError as exc:
        raise SettingsError(f"DESKTOPD_VISION_MODELS: {exc}") from None
    max_age = _number(args.recording_max_age, env, "DESKTOPD_RECORDING_MAX_AGE", float, DEFAULT_RETENTION.max_age_s)
    max_bytes = _number(args.recording_max_bytes, env, "DESKTOPD_RECORDING_MAX_BYTES", int,
                        DEFAULT_RETENTION.max_bytes)

    port = args.port
    if port is None:
        raw = env.get("DESKTOPD_PORT")
        try:
            port = int(raw) if raw else DEFAULT_PORT
        except ValueError:
            raise SettingsError(f"DESKTOPD_PORT must be an integer, got {raw!r}") from None
    try:
        token = read_token(env.get("DESKTOPD_TOKEN"), args.token_file)
    except OSError as exc:
        raise SettingsError(f"cannot read the token file: {exc}") from None
    try:
        # The sidecar's own token as the image passes it to both services; it falls back to ours.
        sidecar_token = (env.get("DESKTOPD_SIDECAR_TOKEN")
                         or read_token(env.get("SIDECAR_TOKEN"), env.get("SIDECAR_TOKEN_FILE")) or token)
    except OSError as exc:
        raise SettingsError(f"cannot read SIDECAR_TOKEN_FILE: {exc}") from None
    settings = Settings(display=args.display, host=args.host, port=port, token=token,
                        insecure=args.insecure, log_level=args.log_level,
                        app_log_dir=args.app_log_dir,
                        sidecar_url=args.sidecar_url or "http://127.0.0.1:8122",
                        sidecar_configured=args.sidecar_url is not None,
                        sidecar_token=sidecar_token,
                        tree_format=args.tree_format, recording_dir=args.recording_dir,
                        recording_max_age=max_age, recording_max_bytes=max_bytes,
                        backend=args.backend, wayland_display=args.wayland_display,
                        window_manager=args.window_manager,
                        osworld=args.osworld,
                        osworld_port=int(_number(args.osworld_port, env, "DESKTOPD_OSWORLD_PORT", int,
                                                 DEFAULT_OSWORLD_PORT)),
                        vision_models=vision_models,
                        **guard_arguments(args), **deadline_arguments(args))
    settings.check()
    return settings
