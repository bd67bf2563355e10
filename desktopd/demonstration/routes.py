"""The demonstration's routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body, with_query

from . import handlers

ROUTES: list[Route] = [
    Route("POST", "/api/v1/demonstration/start", with_body(handlers.START_BODY, handlers.start, optional=True),
          "Start capturing a person's input (X11) as actions", "demonstration",
          extra_errors=(409, 501),
          returns=handlers.STATE,
          description="Every input to the X server from now on (a VNC client, noVNC, an X client) "
                      "becomes actions, each with source person, or agent for what desktopd itself "
                      "injected. At most one at a time (409 otherwise); 501 on Sway."),
    Route("POST", "/api/v1/demonstration/stop", handlers.stop, "Stop capturing; pending actions finish",
          "demonstration", not_found=True, extra_errors=(501,), returns=handlers.STATE,
          description="404 when none is running."),
    Route("GET", "/api/v1/demonstration", handlers.state, "The current (or last) demonstration",
          "demonstration", not_found=True, extra_errors=(501,), returns=handlers.STATE),
    Route("GET", "/api/v1/demonstration/actions", with_query(handlers.ACTIONS_QUERY, handlers.actions),
          "The demonstration's actions as NDJSON, followed as they happen", "demonstration",
          concurrency=8,   # a followed action stream holds its slot until the demonstration ends
          not_found=True, extra_errors=(501,),
          success={"application/x-ndjson": {"schema": handlers.ACTION_LINE.schema()}},
          description="One JSON line per action (seq from 1), a heartbeat line every few seconds "
                      "while following, and an end line with the demonstration's state when it "
                      "ended or max_seconds passed (reconnect with since=<last seq>)."),
]
