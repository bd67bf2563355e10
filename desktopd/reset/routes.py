"""The reset's route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body

from . import handlers

ROUTES: list[Route] = [
    Route("POST", "/api/v1/reset", with_body(handlers.RESET_BODY, handlers.reset, optional=True),
          "Reset the desktop for a new episode", "system",
          extra_errors=(409, 502),
          returns=handlers.RESULT,
          description="Closes other applications' windows, releases held input, empties the "
                      "clipboard, homes the pointer and (with a sidecar) gives the browser a fresh "
                      "profile (a new browser context, or a new Chromium: isolation); answers when "
                      "all that is done and the first URL is the front tab, with seconds per part."),
]
