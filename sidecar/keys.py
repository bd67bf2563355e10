"""Typed application keys of the sidecar's aiohttp app (plain strings on aiohttp 3.8)."""

from __future__ import annotations

from desktopd.web.appkeys import app_key

from .chromium_watch import ChromiumSupervisor
from .settings import Settings

SETTINGS = app_key("sidecar.settings", Settings)
SUPERVISOR = app_key("sidecar.supervisor", ChromiumSupervisor)
