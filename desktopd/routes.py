"""Every route of desktopd, registered on the app and described by OpenAPI: each feature package
declares its own (its routes.py; the vendor formats' come from their declarations), and this list
puts them together in the document's order."""

from __future__ import annotations

from aiohttp import web

from desktopd.accessibility import routes as accessibility
from desktopd.clipboard import routes as clipboard
from desktopd.compat import routes as compat
from desktopd.computer.format_servers import format_routes
from desktopd.demonstration import routes as demonstration
from desktopd.execute import routes as execute
from desktopd.input import routes as input_routes
from desktopd.meta import routes as meta
from desktopd.recording import routes as recording
from desktopd.reset import routes as reset
from desktopd.screen import routes as screen
from desktopd.step import routes as step
from desktopd.vision import routes as vision
from desktopd.windows import routes as windows
from httpapi.routing import Route, register

ROUTES: list[Route] = [
    *meta.ROUTES,
    *screen.ROUTES,
    *input_routes.ROUTES,
    *format_routes(),
    *step.ROUTES,
    *recording.ROUTES,
    *demonstration.ROUTES,
    *reset.ROUTES,
    *windows.ROUTES,
    *execute.ROUTES,
    *clipboard.ROUTES,
    *compat.ROUTES,
    *accessibility.ROUTES,
    *vision.ROUTES,
]


def setup_routes(app: web.Application, routes: list[Route] = ROUTES) -> None:
    register(app, routes)
