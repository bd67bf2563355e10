"""What `validate` checks beyond the JSON Schemas: every file a record names is there, and the
video is the one described (size, SHA-256) with every step's video_time_s inside it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from .reader import EpisodeReader

CHUNK_BYTES = 1 << 20


def sha256_of(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def problems(episode: EpisodeReader) -> Iterator[str]:
    times = []
    for step in episode:
        if not step.image_path.is_file():
            yield f"step {step.index}: {step.image_path} is missing"
        if step.layout_path is not None and not step.layout_path.is_file():
            yield f"step {step.index}: {step.layout_path} is missing"
        for name in ((step.record.get("after") or {}).get("image"), (step.record.get("after") or {}).get("layout"),
                     (step.record.get("demonstration") or {}).get("snapshot")):
            if name and not (episode.directory / name).is_file():
                yield f"step {step.index}: {episode.directory / name} is missing"
        if step.record["video_time_s"] is not None:
            times.append((step.index, step.record["video_time_s"]))
    video = (episode.episode.get("recording") or {}).get("video")
    if video is None or video["file"] is None:
        return
    path = episode.video_path
    if not path.is_file():
        yield f"the video {path} is missing"
        return
    if path.stat().st_size != video["bytes"] or sha256_of(path) != video["sha256"]:
        yield f"the video {path} is not the one recorded (size or sha256 differ)"
    duration = video["duration_s"]
    outside = [index for index, t in times if duration is None or not 0 <= t <= duration]
    if outside != video["steps_outside"]:
        yield f"steps outside the video's {duration} s: {outside}, the record says {video['steps_outside']}"
    if (video["status"] == "complete") != (not outside):
        yield f"the video is {video['status']} but steps {outside} fall outside it"
