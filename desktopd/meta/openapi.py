"""GET /api/v1/openapi.json: OpenAPI 3.1 generated from the route table and the request models
(the same objects that validate requests, so the document cannot drift from the code)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web

from desktopd import __version__, app_keys
from httpapi.openapi import build_openapi as generic_openapi
from httpapi.routing import Route

ERROR_TEXT = {
    400: "Malformed JSON or not a JSON object; a request line or header over 8,190 bytes",
    401: "Missing or wrong bearer token",
    404: "No such window",
    409: "Conflicts with the current state (e.g. a recording is already running, or none is)",
    422: "A field is invalid; `field` names it",
    500: "Unexpected error (X protocol error, bug)",
    501: "The desktop backend (x11 or sway) lacks this feature; `backend` and `feature` name them",
    502: "The application (or ffmpeg, or the sidecar) refused or failed the request",
    503: "The X display is not available (desktopd reconnects when it returns)",
}


DESCRIPTION = ("See and drive an X11 desktop over HTTP. Coordinates are screen pixels unless a "
               "field says otherwise.")


def build_openapi(routes: Sequence[Route], *, title: str = "desktopd", description: str = DESCRIPTION,
                  texts: dict[int, str] = ERROR_TEXT) -> dict[str, Any]:
    """desktopd's document (httpapi.openapi with desktopd's version and error texts). A plain dict,
    not a JSONObject: desktopd/osworld/routes.py edits the document's nested objects in place."""
    return generic_openapi(routes, title=title, version=__version__, description=description,
                           texts=texts)


async def openapi_json(request: web.Request) -> web.Response:
    # Built once in init_app: the document depends on the route table only.
    return web.Response(text=request.app[app_keys.OPENAPI_BODY], content_type="application/json")
