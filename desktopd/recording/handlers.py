"""POST /api/v1/recording/start|stop, GET and DELETE /api/v1/recording/{id}: screen video (ffmpeg)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, TypedDict

from aiohttp import web

from desktopd import app_keys
from httpapi.bodies import Typed
from httpapi.fields import F, Const, Enum, Int, Model, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from desktopd.screen.models import parse_region, region_problem
from desktopd.recording.recorder import ScreenRecorder
from httpapi.errors import invalid

from desktopd.app_keys import backend_service
from desktopd.screen.handlers import check_region

MAX_SECONDS = 4 * 3600.0


def _quality_range(body: Mapping[str, object]) -> tuple[str, str] | None:
    quality = body["quality"]
    if isinstance(quality, int) and body["codec"] == "h264" and quality > 51:
        return "quality", "h264's crf is 0..51"
    return None


class RecordingStart(TypedDict):
    fps: int
    codec: Literal["h264", "vp9"]
    quality: int | None
    region: str | None
    max_seconds: float


START_BODY = Typed(Model("RecordingStart", [
    F("fps", Int(1, 60), default=10, description="Frames a second."),
    F("codec", Enum(("h264", "vp9")), default="h264", description="h264 -> MP4, vp9 -> WebM."),
    F("quality", Int(0, 63), description="CRF: lower is better and bigger (default 28 h264, 40 vp9)."),
    F("region", Str(min_length=1, check=region_problem), description="Screen-pixel rectangle "
      "x,y,width,height (default: the whole screen)."),
    F("max_seconds", Number(maximum=MAX_SECONDS, exclusive_minimum=0), default=3600.0,
      description="ffmpeg stops by itself after this long."),
], check=_quality_range), RecordingStart)

RECORDING = ResponseModel("Recording", [
    F("id", Str()), F("path", Str(), description="The file, on the desktop."),
    F("codec", Enum(["h264", "vp9"], typed=False)), F("fps", Int()),
    F("region", Opaque("object")), F("log", Str(), description="ffmpeg's log file."),
    F("started_at", Number(), description="Unix time ffmpeg grabbed the first frame: the video's "
                                          "time 0 (frame n: started_at + n / fps)."),
    F("first_frame_on_disk_at", Number(), description="Unix time the first frame was on disk (the "
                                                      "answer came then)."),
    F("started_monotonic", Number(), description="The same instant, desktopd's CLOCK_MONOTONIC "
                                                 "(time.monotonic())."),
])
STOPPED = ResponseModel("RecordingStopped", [
    *RECORDING.fields, F("frames", Int()), F("size", Int()),
    F("duration", Number(), description="Seconds of video."),
    F("wall_duration", Number()), F("exit_code", Nullable(Int())),
    F("sha256", Nullable(Str()), description="The file's SHA-256 (hex): a download can check it "
                                             "arrived whole."),
])
DELETED = ResponseModel("RecordingDeleted", [
    F("id", Str(), required=True), F("deleted", Const(True, typed=False), required=True),
    F("freed_bytes", Int(), required=True, description="The video's and its logs' bytes."),
])
ID_PATTERN = r"^[0-9a-f]{32}$"


def recorder(request: web.Request) -> ScreenRecorder:
    return request.app[app_keys.RECORDER]


async def start(request: web.Request, body: RecordingStart) -> web.Response:
    xs = backend_service(request)
    xs.require("x11", "screen recording (ffmpeg's x11grab)")
    screen = await xs.screen_size()
    region = parse_region(body["region"]) if body["region"] else (0, 0, screen[0], screen[1])
    check_region(region, screen)
    if region[2] < 2 or region[3] < 2:
        raise invalid("region", "needs at least 2x2 pixels")
    rec = await recorder(request).start(region, body["fps"], body["codec"], body["quality"],
                                        body["max_seconds"])
    return web.json_response(rec.describe())


async def stop(request: web.Request) -> web.Response:
    rec = await recorder(request).stop()
    return web.json_response(rec.result)


def recording_id(request: web.Request) -> str:
    rec_id = request.match_info["id"]
    if not re.fullmatch(ID_PATTERN, rec_id):
        raise invalid("id", f"expected the 32 hex digits recording/start answered, got {rec_id!r}")
    return rec_id


async def download(request: web.Request) -> web.StreamResponse:
    rec = recorder(request).finished_recording(recording_id(request))
    return web.FileResponse(rec.path, headers={"Content-Type": rec.media_type,
                                               "Cache-Control": "no-store"})


async def delete(request: web.Request) -> web.Response:
    return web.json_response(await recorder(request).delete(recording_id(request)))
