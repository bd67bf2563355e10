"""Typed application keys of desktopd's aiohttp app (plain strings on aiohttp 3.8)."""

from __future__ import annotations

from httpapi.appkeys import app_key

SETTINGS = app_key("desktopd.settings")
XSERVICE = app_key("desktopd.xservice")
STARTED_AT = app_key("desktopd.started_at", float)
ROUTES = app_key("desktopd.routes")
OPENAPI_BODY = app_key("desktopd.openapi_body", str)
ACCESSIBILITY = app_key("desktopd.accessibility")
RECORDER = app_key("desktopd.recorder")
SETTLER = app_key("desktopd.settler")
TEXT_READER = app_key("desktopd.text_reader")
VISION_MODELS = app_key("desktopd.vision_models")
DEMONSTRATIONS = app_key("desktopd.demonstrations")
