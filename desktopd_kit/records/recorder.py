"""Recorder: wraps a Desktop and records what an agent does on it, one episode at a time.

    with Recorder(desktop, "episodes", urls=["https://example.org"], reset=True) as rec:
        obs = rec.observe()                    # what the agent looks at
        rec.step({"action": "left_click", "coordinate": [640, 400]})
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..client import Desktop
from ..errors import DesktopError
from ..observe import Acted, Observation, ObserveOptions, Observer
from .writer import EpisodeWriter


class VideoClock:
    """Seconds since desktopd's screen recording started (when one runs)."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self.info: dict | None = None

    def start(self) -> dict:
        answer = self.desktop.recording_start()
        # started_at: desktopd's Unix time of the video's first frame (its clock: the desktop's).
        self.info = {"id": str(answer["id"]), "started_mono": time.monotonic(),
                     "started_wall": float(answer.get("started_at") or time.time()),
                     "start": answer, "stop": None}
        return self.info

    def at(self, wall: float) -> float | None:
        """Seconds into the video at Unix time ``wall``."""
        return None if self.info is None else wall - self.info["started_wall"]

    def stop(self) -> dict | None:
        if self.info is None:
            return None
        try:
            self.info["stop"] = self.desktop.recording_stop()
        except DesktopError as error:
            self.info["stop"] = {"error": error.code, "detail": error.message}
        return self.info


def new_episode_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:8]


def episode_fields(desktop: Desktop, observer: Observer, episode_id: str, urls: Sequence[str],
                   metadata: Mapping[str, object] | None) -> dict:
    o = observer.options
    size = o.screenshot_size
    return {"episode_id": episode_id,
            "desktop": {"url": desktop.endpoints.url, "sidecar_url": desktop.endpoints.sidecar_url,
                        "screen": {"width": observer.screen[0], "height": observer.screen[1]}},
            "observation": {"screenshot_format": o.screenshot_format,
                            "screenshot_size": {"width": size[0], "height": size[1]} if size else None,
                            "layout": o.observe_layout},
            "urls": list(urls), "metadata": dict(metadata or {})}


class Recorder:
    def __init__(self, desktop: Desktop, root: str | os.PathLike, *, options: ObserveOptions | None = None,
                 episode_id: str | None = None, urls: Sequence[str] = (), reset: bool = False,
                 video: bool = False, metadata: Mapping[str, object] | None = None) -> None:
        self.desktop = desktop
        self.observer = Observer(desktop, options or ObserveOptions())
        if reset:
            desktop.reset(list(urls) or None)
        episode_id = episode_id or new_episode_id()
        self.writer = EpisodeWriter(Path(root) / episode_id,
                                    episode_fields(desktop, self.observer, episode_id, urls, metadata))
        self.video = VideoClock(desktop)
        if video:
            self.writer.set_recording(self.video.start())
        self._next: Observation | None = None
        self.total_reward = 0.0

    @property
    def directory(self) -> Path:
        return self.writer.dir

    def observe(self) -> Observation:
        """The desktop now; it is also the "before" of the next step."""
        self._next = self.observer.observe()
        return self._next

    def step(self, action: Mapping[str, object], *, action_format: str = "auto",
             reward: float | None = None, terminated: bool | None = None,
             info: dict | None = None) -> tuple[Acted, dict]:
        """Observes (unless observe() just did), runs ``action`` and writes the step's line."""
        before = self._next or self.observer.observe()
        self._next = None
        acted = self.observer.act(action, before, action_format)
        self.total_reward += reward or 0.0
        line = self.writer.write_step(before, acted, reward=reward, terminated=terminated,
                                      truncated=False if terminated is not None else None, info=info,
                                      video_time_s=self.video.at(acted.act.wall))
        return acted, line

    def close(self, *, terminated: bool = False, truncated: bool = False) -> None:
        recording = self.video.stop()
        if recording is not None:
            self.writer.episode["recording"] = recording
        self.writer.close({"total_reward": self.total_reward, "terminated": terminated,
                           "truncated": truncated})

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
