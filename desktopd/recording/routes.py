"""The screen recording's routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body

from . import handlers

ROUTES: list[Route] = [
    Route("POST", "/api/v1/recording/start", with_body(handlers.START_BODY, handlers.start, optional=True),
          "Start a screen recording (ffmpeg)", "recording", extra_errors=(409, 501, 502),
          returns=handlers.RECORDING,
          description="At most one at a time (409 otherwise). Answers once the first frame is on "
                      "disk; started_at/started_monotonic are that instant."),
    Route("POST", "/api/v1/recording/stop", handlers.stop, "Stop the screen recording", "recording",
          uses_x=False, extra_errors=(409,),
          returns=handlers.STOPPED),
    Route("GET", "/api/v1/recording/{id}", handlers.download, "Download a finished recording",
          "recording", uses_x=False, not_found=True, extra_errors=(409,),
          id_description="The id POST /api/v1/recording/start returned.",
          id_pattern=handlers.ID_PATTERN,
          success={"video/mp4": {"schema": {"type": "string", "format": "binary"}},
                   "video/webm": {"schema": {"type": "string", "format": "binary"}}},
          description="The recording stays on the desktop until DELETE, or until the retention "
                      "limits end it (DESKTOPD_RECORDING_MAX_AGE, DESKTOPD_RECORDING_MAX_BYTES); "
                      "the 404 of a deleted one says why it went."),
    Route("DELETE", "/api/v1/recording/{id}", handlers.delete, "Delete a finished recording",
          "recording", uses_x=False, not_found=True, extra_errors=(409,),
          id_description="The id POST /api/v1/recording/start returned.",
          id_pattern=handlers.ID_PATTERN,
          returns=handlers.DELETED,
          description="Removes the video and ffmpeg's log from the desktop (a client does this "
                      "once it has the file); 409 while it is still recording."),
]
