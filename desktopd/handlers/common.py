"""Small helpers every handler uses: typed access to app state and model validation."""

from __future__ import annotations

from aiohttp import web

from desktopd import keys
from httpapi.bodies import json_body, optional_json_body, query
from desktopd.settle import Settler
from desktopd.xservice import XService

__all__ = ["json_body", "optional_json_body", "query", "settler", "xservice"]


def xservice(request: web.Request) -> XService:
    return request.app[keys.XSERVICE]


def settler(request: web.Request) -> Settler:
    return request.app[keys.SETTLER]
