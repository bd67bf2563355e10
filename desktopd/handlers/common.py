"""Small helpers every handler uses: typed access to app state and model validation."""

from __future__ import annotations

from aiohttp import web

from desktopd import app_keys
from httpapi.bodies import json_body, optional_json_body, query
from desktopd.settle.settler import Settler
from desktopd.backend.service import BackendService

__all__ = ["json_body", "optional_json_body", "query", "settler", "backend_service"]


def backend_service(request: web.Request) -> BackendService:
    return request.app[app_keys.BACKEND]


def settler(request: web.Request) -> Settler:
    return request.app[app_keys.SETTLER]
