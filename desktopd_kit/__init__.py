"""The harness kit: clients of desktopd and its sidecar (Desktop, AsyncDesktop), step records
(records/), and a Gymnasium environment (env.DesktopEnv). Optional extra: ``pip install .[kit]``."""

from .client import AsyncDesktop, Desktop
from .errors import DesktopError
from .retry import RetryPolicy
from .screenshot import Screenshot

__all__ = ["AsyncDesktop", "Desktop", "DesktopError", "RetryPolicy", "Screenshot"]
