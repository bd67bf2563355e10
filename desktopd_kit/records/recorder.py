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
from ..observe import Acted, Observation, ObserveOptions, Observer
from .network import NetworkLog
from .video import VideoClock
from .writer import EpisodeWriter


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
                 video: bool = False, metadata: Mapping[str, object] | None = None,
                 network: bool = False, network_content: bool = False,
                 profile: str | None = None) -> None:
        self.desktop = desktop
        self.observer = Observer(desktop, options or ObserveOptions())
        if reset:
            desktop.reset(list(urls) or None, profile=profile)
        episode_id = episode_id or new_episode_id()
        self.writer = EpisodeWriter(Path(root) / episode_id,
                                    episode_fields(desktop, self.observer, episode_id, urls, metadata))
        self.video = VideoClock(desktop)
        if video:
            self.writer.set_recording(self.video.start())
        # network.har (the sidecar's HAR capture) and each step's requests.
        self.network = NetworkLog(desktop, content=network_content) if network else None
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
        if self.network is not None:
            self.network.begin_step()
        acted = self.observer.act(action, before, action_format)
        self.total_reward += reward or 0.0
        line = self.writer.write_step(before, acted, reward=reward, terminated=terminated,
                                      truncated=False if terminated is not None else None, info=info,
                                      video_time_s=self.video.at(acted.act.wall),
                                      requests=self.network.step_requests() if self.network else None)
        return acted, line

    def close(self, *, terminated: bool = False, truncated: bool = False) -> None:
        """Ends the episode: with video, the recording is stopped and brought into the episode
        directory (also after an error: a lost desktop's record says the video was lost)."""
        if self.writer.closed:
            return
        recording = self.video.finish(self.writer.dir, self.writer.video_times)
        if recording is not None:
            self.writer.episode["recording"] = recording
        if self.network is not None:
            self.writer.episode["network"] = self.network.finish(self.writer.dir)
        self.writer.close({"total_reward": self.total_reward, "terminated": terminated,
                           "truncated": truncated})

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
