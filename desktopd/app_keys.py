"""Typed application keys of desktopd's aiohttp app (plain strings on aiohttp 3.8), and the
typed getters handlers reach the shared services with."""

from __future__ import annotations

from aiohttp import web

from desktopd.backend.service import BackendService
from desktopd.settle.settler import Settler
from httpapi.app_keys import app_key

SETTINGS = app_key("desktopd.settings")
BACKEND = app_key("desktopd.backend_service")
STARTED_AT = app_key("desktopd.started_at", float)
ROUTES = app_key("desktopd.routes")
OPENAPI_BODY = app_key("desktopd.openapi_body", str)
ACCESSIBILITY = app_key("desktopd.accessibility")
RECORDER = app_key("desktopd.recorder")
SETTLER = app_key("desktopd.settler")
TEXT_READER = app_key("desktopd.text_reader")
VISION_MODELS = app_key("desktopd.vision_models")
DEMONSTRATIONS = app_key("desktopd.demonstrations")
WINDOW_MANAGER_READY = app_key("desktopd.window_manager_ready")


def backend_service(request: web.Request) -> BackendService:
    return request.app[BACKEND]


def settler(request: web.Request) -> Settler:
    return request.app[SETTLER]
