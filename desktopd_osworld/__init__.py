"""OSWorld's ``desktop_env`` on desktopd containers: a Provider that starts the Chromium desktop
with Docker (OSWorld's API on, its ports on 127.0.0.1) and reverts through desktopd's reset, and
``register()``, the one line that makes ``DesktopEnv(provider_name="docker")`` use it."""

from .provider import DesktopdProvider, DesktopdVMManager, register

__all__ = ["DesktopdProvider", "DesktopdVMManager", "register"]
