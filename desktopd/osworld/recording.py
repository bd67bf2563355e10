"""/start_recording and /end_recording: desktopd's screen recorder, the MP4 sent back at the end."""

from __future__ import annotations

from aiohttp import web

from desktopd.app_keys import backend_service
from desktopd.recording.handlers import recorder
from httpapi.errors import ApiError

FPS = 10
MAX_SECONDS = 4 * 3600.0


async def start_recording(request: web.Request) -> web.Response:
    width, height = await backend_service(request).screen_size()
    rec = recorder(request)
    if rec.current is not None:
        raise ApiError(400, "conflict", "Recording is already in progress.")
    await rec.start((0, 0, width, height), FPS, "h264", None, MAX_SECONDS)
    return web.json_response({"status": "success", "message": "Started recording successfully."})


async def end_recording(request: web.Request) -> web.StreamResponse:
    if recorder(request).current is None:
        raise ApiError(400, "conflict", "No recording in progress to stop.")
    done = await recorder(request).stop()
    return web.FileResponse(done.path, headers={
        "Content-Type": "video/mp4", "Content-Disposition": 'attachment; filename="recording.mp4"'})
