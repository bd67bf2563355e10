"""An episode's screen video: desktopd's recording started with the episode, its clock for the
steps' ``video_time_s``, and, when the episode ends, the file brought into the episode directory
(streamed, checked against desktopd's size and SHA-256, measured with ffprobe) and deleted from
the desktop. What could not be brought home is said in the record (``recording.video``), never a
file name the reader cannot open: desktopd's own file names (the video and ffmpeg's log in the
container) are kept apart, in ``recording.on_desktop``, and only while the files are there."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from ..client import Desktop
from ..errors import DesktopError

COMPLETE, PARTIAL, LOST = "complete", "partial", "lost"
EXTENSIONS = {"h264": ("mp4", "video/mp4"), "vp9": ("webm", "video/webm")}
PROBE_TIMEOUT_S = 120.0
# The fields of desktopd's recording answers that name its files, on the desktop (container paths).
DESKTOP_FILE_FIELDS = ("path", "log")


def without_desktop_files(answer: dict, on_desktop: dict) -> dict:
    """desktopd's answer without the fields naming its files, which go into ``on_desktop``."""
    for name in DESKTOP_FILE_FIELDS:
        if answer.get(name) is not None:
            on_desktop[name] = answer[name]
    return {key: value for key, value in answer.items() if key not in DESKTOP_FILE_FIELDS}


class VideoClock:
    """Seconds since desktopd's screen recording started (when one runs)."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self.info: dict | None = None

    def start(self) -> dict:
        answer = self.desktop.recording_start()
        on_desktop: dict = {}
        # started_at: desktopd's Unix time of the video's first frame (its clock: the desktop's).
        self.info = {"id": str(answer["id"]), "started_mono": time.monotonic(),
                     "started_wall": float(answer.get("started_at") or time.time()),
                     "start": without_desktop_files(answer, on_desktop), "stop": None,
                     "on_desktop": on_desktop}
        return self.info

    def at(self, wall: float) -> float | None:
        """Seconds into the video at Unix time ``wall``."""
        return None if self.info is None else wall - self.info["started_wall"]

    def stop(self) -> dict | None:
        if self.info is None:
            return None
        try:
            self.info["stop"] = without_desktop_files(self.desktop.recording_stop(), self.info["on_desktop"])
        except DesktopError as error:
            self.info["stop"] = {"error": error.code, "detail": error.message}
        return self.info

    def finish(self, directory: Path, step_times: Sequence[tuple[int, float]]) -> dict | None:
        """Stops the recording and brings the video home: the record's ``recording``, with
        ``video`` saying what is in ``directory`` (or why nothing is)."""
        info = self.stop()
        if info is not None:
            info["video"] = bring_home(self.desktop, info, directory, step_times)
            if info["video"].get("deleted_on_desktop"):
                del info["on_desktop"]    # those files are gone: the record names none
        return info


def probe(path: Path) -> tuple[float, int] | str:
    """(duration in seconds, frames) by ffprobe, or why they could not be measured."""
    ffprobe = shutil.which("ffprobe")
    if ffprobe is None:
        return "ffprobe is not installed (Debian/Ubuntu package ffmpeg): duration and frames are desktopd's"
    try:
        done = subprocess.run([ffprobe, "-v", "error", "-count_packets", "-select_streams", "v:0",
                               "-show_entries", "stream=nb_read_packets:format=duration", "-of", "json", str(path)],
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"ffprobe failed: {error}"
    try:
        found = json.loads(done.stdout)
        return float(found["format"]["duration"]), int(found["streams"][0]["nb_read_packets"])
    except (ValueError, KeyError, IndexError, TypeError):
        return f"ffprobe could not read the file (exit {done.returncode}): {done.stderr.strip()[-300:]}"


def lost(reason: str) -> dict:
    return {"status": LOST, "file": None, "reason": reason}


def bring_home(desktop: Desktop, info: dict, directory: Path, step_times: Sequence[tuple[int, float]]) -> dict:
    """Downloads the recording into ``directory``, checks and measures it, deletes it from the
    desktop; the ``video`` description (status complete, partial or lost)."""
    stop = info.get("stop") or {}
    codec = stop.get("codec") or info["start"].get("codec") or "h264"
    extension, media_type = EXTENSIONS.get(codec, ("mp4", "video/mp4"))
    name = f"video.{extension}"
    try:
        saved = desktop.download_recording(info["id"], directory / name)
    except (DesktopError, OSError) as error:    # the desktop gone, or no room for the file here
        why = f"the desktop's recording could not be downloaded: {error}"
        if "error" in stop:
            why = f"recording/stop failed ({stop['error']}: {stop.get('detail')}); {why}"
        return lost(why)
    expected = (stop.get("size"), stop.get("sha256"))
    if expected != (None, None) and expected != (saved.bytes, saved.sha256):
        saved.path.unlink()
        return lost(f"the download ({saved.bytes} bytes, sha256 {saved.sha256}) is not the file desktopd "
                    f"recorded ({expected[0]} bytes, sha256 {expected[1]})")
    video = {"status": COMPLETE, "file": name, "media_type": media_type, "bytes": saved.bytes,
             "sha256": saved.sha256, "fps": stop.get("fps") or info["start"].get("fps"),
             "measured_by": "ffprobe", "reason": None}
    measured = probe(saved.path)
    if isinstance(measured, str):
        video.update(duration_s=stop.get("duration"), frames=stop.get("frames"), measured_by="desktopd",
                     measure_note=measured)
    else:
        video.update(duration_s=measured[0], frames=measured[1])
    outside = [index for index, t in step_times if video["duration_s"] is None or not 0 <= t <= video["duration_s"]]
    video["steps_outside"] = outside
    if outside:
        video.update(status=PARTIAL, reason=f"steps {outside} fall outside the video's "
                                            f"{video['duration_s']} s (it ended early)")
    try:
        desktop.delete_recording(info["id"])
        video["deleted_on_desktop"] = True
    except DesktopError as error:   # it is home all the same; the desktop's retention ends it
        video.update(deleted_on_desktop=False, delete_error=str(error))
    return video
