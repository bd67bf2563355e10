"""Typed application keys of the sidecar's aiohttp app (plain strings on aiohttp 3.8)."""

from __future__ import annotations

from desktopd_kit import AsyncDesktop
from httpapi.app_keys import app_key

from ..browser.supervisor import ChromiumSupervisor
from ..settings import Settings
from .shared_reads import SharedReads

SETTINGS = app_key("sidecar.settings", Settings)
SUPERVISOR = app_key("sidecar.supervisor", ChromiumSupervisor)
LAYOUT_READS = app_key("sidecar.layout_reads", SharedReads)
# desktopd's client for POST /act's visible mode; None without SIDECAR_DESKTOPD_URL.
DESKTOPD = app_key("sidecar.desktopd", AsyncDesktop)
