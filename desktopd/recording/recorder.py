"""Screen video with ffmpeg's x11grab: at most one recording at a time, as a child process
whose output goes to a log file, stopped gracefully ("q" on stdin, then SIGINT, then SIGKILL).

MP4 files are written fragmented (a moov up front, fragments at keyframes), so even a recording
whose ffmpeg was killed stays playable up to its last fragment. The start timestamps are the
instant ffmpeg grabbed the first frame (x11grab stamps frames with the wall clock and ffmpeg logs
the input's start), so a step recorder can place its steps on the video's timeline: frame n was
grabbed about ``started_at + n / fps``. The first frame reaches the disk later, by as long as the
encoder takes to start (0.1 to 0.7 s seen on a loaded machine): timing the video by that instant
put a step's time on a frame of an earlier step.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from typing import TypedDict

from desktopd.recording.retention import AGE, Retention, StoredRecording, expired, stored_recordings
from httpapi.errors import ApiError, not_found

CONTAINERS = {"h264": ("mp4", "video/mp4"), "vp9": ("webm", "video/webm")}
DEFAULT_CRF = {"h264": 28, "vp9": 40}
FIRST_FRAME_TIMEOUT_S = 15.0
STOP_GRACE_S = 15.0       # for "q": ffmpeg flushes the encoder and closes the file
CATCH_UP_S = 5.0          # at most this long a stop waits for the video to reach its request
PROGRESS_PERIOD_S = 0.1   # how often ffmpeg writes its -progress block
SIGNAL_GRACE_S = 5.0
POLL_S = 0.05
log = logging.getLogger(__name__)
# ffmpeg's input line "Duration: N/A, start: 1795800313.452423, bitrate: ...": x11grab's first frame
INPUT_START = re.compile(r"^Input #0, x11grab.*?\n\s+Duration: [^,]*, start: (\d+\.\d+)", re.M | re.S)
DEFAULT_RETENTION = Retention(max_age_s=3600.0, max_bytes=2 << 30)
REMEMBERED_DELETIONS = 1024   # ids whose 404 says why they are gone
HASH_CHUNK = 1 << 20


def encoder_args(codec: str, crf: int, fps: int) -> list[str]:
    if codec == "h264":
        return ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-crf", str(crf),
                "-pix_fmt", "yuv420p", "-g", str(fps * 2),
                "-movflags", "+frag_keyframe+empty_moov+default_base_moof"]
    return ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
            "-crf", str(crf), "-b:v", "0", "-pix_fmt", "yuv420p", "-g", str(fps * 2)]


def ffmpeg_argv(ffmpeg: str, display: str, region: tuple[int, int, int, int], fps: int, codec: str,
                crf: int, max_seconds: float, path: str, progress: str) -> list[str]:
    x, y, width, height = region
    return [ffmpeg, "-hide_banner", "-nostats", "-loglevel", "info",
            "-progress", progress, "-stats_period", str(PROGRESS_PERIOD_S),
            "-f", "x11grab", "-draw_mouse", "1", "-framerate", str(fps),
            "-video_size", f"{width}x{height}", "-i", f"{display}+{x},{y}",
            "-t", f"{max_seconds:g}",
            # yuv420p needs even sides: drop an odd last column/row rather than fail
            "-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2",
            # Constant frame rate on the wall clock: frame i shows the screen i/fps s after the
            # start (a grab that falls behind on a loaded machine is caught up by duplicating or
            # dropping frames, never by squeezing late frames together), so step records align.
            "-fps_mode", "cfr", "-r", str(fps),
            # every packet reaches the file at once: the first frame on disk marks the start
            *encoder_args(codec, crf, fps), "-flush_packets", "1", "-y", path]


def file_sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256()
            while chunk := fh.read(HASH_CHUNK):
                digest.update(chunk)
            return digest.hexdigest()
    except FileNotFoundError:
        return None


def read_progress(path: str) -> dict[str, str]:
    """The last block of ffmpeg's -progress key=value output."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


class RegionJson(TypedDict):
    x: int
    y: int
    width: int
    height: int


class RecordingDescription(TypedDict):
    id: str
    path: str
    codec: str
    fps: int
    region: RegionJson
    started_at: float
    started_monotonic: float
    first_frame_on_disk_at: float
    log: str


class RecordingResult(RecordingDescription):
    """A stopped recording: its description and what ffmpeg wrote."""
    frames: int
    size: int
    duration: float
    wall_duration: float
    exit_code: int | None
    sha256: str | None           # None: the file is gone


class Deleted(TypedDict):
    id: str
    deleted: bool
    freed_bytes: int


@dataclass
class Recording:
    id: str
    path: str
    log_path: str
    progress_path: str
    codec: str
    fps: int
    region: tuple[int, int, int, int]
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    started_monotonic: float = 0.0
    on_disk_at: float = 0.0
    stopped_monotonic: float | None = None
    result: RecordingResult | None = field(default=None)

    @property
    def media_type(self) -> str:
        return CONTAINERS[self.codec][1]

    def describe(self) -> RecordingDescription:
        return {"id": self.id, "path": self.path, "codec": self.codec, "fps": self.fps,
                "region": {"x": self.region[0], "y": self.region[1], "width": self.region[2],
                           "height": self.region[3]},
                "started_at": self.started_at, "started_monotonic": self.started_monotonic,
                "first_frame_on_disk_at": self.on_disk_at,
                "log": self.log_path}


class ScreenRecorder:
    """One per app: the current recording and the finished ones (by id, for download), which are
    deleted on request (DELETE) or by the retention limits (retention.py)."""

    def __init__(self, display: str, directory: str, retention: Retention = DEFAULT_RETENTION) -> None:
        self.display = display
        self.directory = directory
        self.retention = retention
        self.current: Recording | None = None
        self.finished: dict[str, Recording] = {}
        self.deleted: dict[str, str] = {}    # id -> why, for the 404 of a later download
        self._lock = asyncio.Lock()

    async def start(self, region: tuple[int, int, int, int], fps: int, codec: str, crf: int | None,
                    max_seconds: float) -> Recording:
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg is None:
            raise ApiError(503, "unavailable", "ffmpeg is not installed (Debian package ffmpeg)")
        async with self._lock:
            if self.current is not None:
                raise ApiError(409, "conflict", f"recording {self.current.id} is running; stop it first")
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            rec_id = uuid.uuid4().hex
            base = os.path.join(self.directory, f"recording-{rec_id}")
            rec = Recording(rec_id, f"{base}.{CONTAINERS[codec][0]}", f"{base}.log",
                            f"{base}.progress", codec, fps, region)
            argv = ffmpeg_argv(ffmpeg, self.display, region, fps, codec,
                               DEFAULT_CRF[codec] if crf is None else crf, max_seconds, rec.path,
                               rec.progress_path)
            with open(rec.log_path, "ab") as log:
                # Its own process group: a signal for desktopd's group never cuts the file short.
                rec.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=log, stderr=log,
                                               start_new_session=True)
            self.current = rec
            try:
                await self._wait_first_frame(rec)
            except BaseException:
                await self._finish(rec)
                raise
            return rec

    async def _wait_first_frame(self, rec: Recording) -> None:
        deadline = time.monotonic() + FIRST_FRAME_TIMEOUT_S
        while time.monotonic() < deadline:
            if rec.process.poll() is not None:
                raise ApiError(502, "recording_failed",
                               f"ffmpeg exited with {rec.process.returncode}: {self._log_tail(rec)}")
            if os.path.exists(rec.path) and os.path.getsize(rec.path) > 0:
                now, now_monotonic = time.time(), time.monotonic()
                grabbed = self._first_grab(rec, now)
                rec.on_disk_at, rec.started_at = now, grabbed
                rec.started_monotonic = now_monotonic - (now - grabbed)
                return
            await asyncio.sleep(POLL_S)
        raise ApiError(502, "recording_failed", "ffmpeg wrote no frame in time: " + self._log_tail(rec))

    async def stop(self) -> Recording:
        requested = time.time()
        async with self._lock:
            rec = self.current
            if rec is None:
                raise ApiError(409, "conflict", "no recording is running")
            await self._catch_up(rec, requested)
            await self._finish(rec)
            return rec

    @staticmethod
    async def _catch_up(rec: Recording, until: float) -> None:
        """Waits (bounded) until the video holds the screen up to Unix time ``until``: on a busy
        machine the encoder runs behind the screen, and a "q" at once would end the video before
        the last things a client did before stopping it."""
        wanted_us = (until - rec.started_at) * 1e6
        deadline = time.monotonic() + CATCH_UP_S
        while rec.process.poll() is None and time.monotonic() < deadline:
            try:
                if int(read_progress(rec.progress_path).get("out_time_us", "0")) >= wanted_us:
                    return
            except ValueError:      # "N/A" before the first frame is out
                pass
            await asyncio.sleep(POLL_S)

    async def _finish(self, rec: Recording) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._stop_process, rec.process)
        rec.stopped_monotonic = time.monotonic()
        progress = read_progress(rec.progress_path)
        frames = int(progress.get("frame", "0") or 0)
        size = os.path.getsize(rec.path) if os.path.exists(rec.path) else 0
        result: RecordingResult = {
            **rec.describe(), "frames": frames, "size": size,
            "duration": frames / rec.fps,   # constant frame rate, as ffprobe reports it
            "wall_duration": max(0.0, rec.stopped_monotonic - rec.started_monotonic)
            if rec.started_monotonic else 0.0,
            "exit_code": rec.process.returncode,
            "sha256": await asyncio.get_running_loop().run_in_executor(None, file_sha256, rec.path)}
        rec.result = result
        self.finished[rec.id] = rec
        self.current = None
        self._sweep()

    @staticmethod
    def _stop_process(process: subprocess.Popen) -> None:
        """q on stdin, then SIGINT, then SIGKILL: each bounded."""
        if process.poll() is None:
            try:
                process.stdin.write(b"q")
                process.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                process.wait(STOP_GRACE_S)
                return
            except subprocess.TimeoutExpired:
                pass
            for sig, grace in ((signal.SIGINT, SIGNAL_GRACE_S), (signal.SIGKILL, SIGNAL_GRACE_S)):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    return
                try:
                    process.wait(grace)
                    return
                except subprocess.TimeoutExpired:
                    continue
        elif process.stdin and not process.stdin.closed:
            process.stdin.close()

    @staticmethod
    def _first_grab(rec: Recording, on_disk: float) -> float:
        """The Unix time ffmpeg grabbed the first frame, from its log; ``on_disk`` when the log
        does not say (or says something impossible)."""
        try:
            with open(rec.log_path, encoding="utf-8", errors="replace") as fh:
                found = INPUT_START.search(fh.read())
        except OSError:
            return on_disk
        grabbed = float(found.group(1)) if found else on_disk
        return grabbed if on_disk - FIRST_FRAME_TIMEOUT_S <= grabbed <= on_disk else on_disk

    @staticmethod
    def _log_tail(rec: Recording, limit: int = 600) -> str:
        try:
            with open(rec.log_path, "rb") as fh:
                return fh.read()[-limit:].decode("utf-8", "replace").strip()
        except OSError:
            return "(no log)"

    def finished_recording(self, rec_id: str) -> Recording:
        """A finished recording still on disk: 409 while it runs, 404 (saying why) otherwise."""
        if self.current is not None and self.current.id == rec_id:
            raise ApiError(409, "conflict", "this recording is still running; stop it first")
        rec = self.finished.get(rec_id)
        if rec is None or not os.path.exists(rec.path):
            raise not_found(f"recording {rec_id} was deleted ({self.deleted[rec_id]})" if rec_id in self.deleted
                            else f"no finished recording {rec_id!r}")
        return rec

    async def delete(self, rec_id: str) -> Deleted:
        async with self._lock:
            self.finished_recording(rec_id)
            stored = [r for r in stored_recordings(self.directory) if r.id == rec_id]
            freed = sum(self._remove(r, "deleted by a client") for r in stored)
            return {"id": rec_id, "deleted": True, "freed_bytes": freed}

    def _sweep(self) -> list[str]:
        """Deletes the finished recordings the retention limits expire; returns their ids."""
        running = self.current.id if self.current is not None else None
        finished = [r for r in stored_recordings(self.directory) if r.id != running]
        gone = expired(finished, self.retention, time.time())
        for stored, limit in gone:
            why = (f"older than the age limit, {self.retention.max_age_s:g} s" if limit == AGE
                   else f"over the size limit, {self.retention.max_bytes} bytes")
            self._remove(stored, why)
        return [stored.id for stored, _ in gone]

    def _remove(self, stored: StoredRecording, why: str) -> int:
        freed = 0
        for path in stored.paths:
            try:
                freed += os.path.getsize(path)
                os.unlink(path)
            except FileNotFoundError:
                pass
        self.finished.pop(stored.id, None)
        self.deleted[stored.id] = why
        while len(self.deleted) > REMEMBERED_DELETIONS:
            self.deleted.pop(next(iter(self.deleted)))
        return freed

    async def sweep_forever(self) -> None:
        """The age limit, checked every retention.sweep_interval_s (a task of the app's life)."""
        while True:
            await asyncio.sleep(self.retention.sweep_interval_s)
            async with self._lock:
                try:
                    self._sweep()
                except OSError:    # the directory unreadable now: said, and tried again next time
                    log.warning("sweeping %s failed", self.directory, exc_info=True)

    async def close(self) -> None:
        if self.current is not None:
            await self.stop()
