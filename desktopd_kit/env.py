"""DesktopEnv: a Gymnasium environment on one desktopd (and optionally its sidecar).

- ``reset(seed=None, options={"urls": [...]})`` calls POST /api/v1/reset (desktop and browser
  back to a known state with those URLs open) and returns the first observation.
- Observations: ``screenshot`` (uint8 H x W x 3, RGB; ``screenshot_size`` (width, height) or the
  screen's), ``windows`` (desktopd's /tree windows as a JSON string) and, with
  ``observe_layout=True``, ``layout`` (the sidecar's /layout as a JSON string). The strings are
  ASCII JSON (non-ASCII escaped), so they fit Gymnasium's Text space.
- ``step(action)`` takes an Anthropic computer tool input, an OpenAI computer_call action or our
  own ``{"type": "click", "x": .., "y": ..}`` (told apart by their keys: see actions.py;
  ``action_format`` forces one), or a sample of ``action_space`` (``type`` an index into
  SPACE_TYPES). Coordinates are observation pixels. A refused action is not an exception: the
  step's ``info["error"]`` carries desktopd's JSON error.
- Reward and termination come from ``reward_fn(observation, action, info) -> float`` and
  ``terminate_fn(observation, info) -> bool`` (0 and False without them); ``max_steps`` truncates.
- ``record_dir``: every episode is written there in the record format (docs/harness-kit.md).

Desktops are not deterministic (clocks, animations, the network), so the registered spec says
``nondeterministic=True``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsInt

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .actions import FORMATS, Format
from .client import Desktop
from .observe import Acted, Observation, ObserveOptions, Observer
from .records.recorder import episode_fields, new_episode_id
from .records.video import VideoClock
from .records.writer import EpisodeWriter

ENV_ID = "desktopd/Desktop-v0"
SPACE_TYPES = ("noop", "move", "click", "double_click", "scroll", "type")
SCROLL_STEPS = (-3, -2, -1, 1, 2, 3)
JSON_CHARSET = "".join(chr(c) for c in range(32, 127))   # json.dumps(ensure_ascii=True) output
TYPED_CHARSET = string.ascii_letters + string.digits + " "
MAX_JSON_CHARS = 1 << 24

RewardFn = Callable[[dict, Mapping[str, object], dict], float]
TerminateFn = Callable[[dict, dict], bool]


def _space_int(value: object) -> int:
    """An integer of an action_space sample (a NumPy integer, or an array of one)."""
    if not isinstance(value, SupportsInt):
        raise TypeError(f"an action_space integer, got {value!r}")
    return int(value)


def _json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


class DesktopEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, desktop_url: str, sidecar_url: str | None = None, token: str | None = None,
                 action_format: Format | str = "auto", observe_layout: bool = False,
                 screenshot_size: tuple[int, int] | None = None, reward_fn: RewardFn | None = None,
                 terminate_fn: TerminateFn | None = None, record_dir: str | None = None, *,
                 render_mode: str | None = "rgb_array", urls: Sequence[str] = (),
                 screenshot_format: str = "raw", settle_s: float = 0.5, settle_quiet_s: float = 0.03,
                 settle_browser: bool = True, max_steps: int | None = None, record_video: bool = False, timeout: float = 30.0) -> None:
        if action_format not in ("auto", *FORMATS):
            raise ValueError(f"action_format must be auto, {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, "
                             f"not {action_format!r}")
        if observe_layout and not sidecar_url:
            raise ValueError("observe_layout needs sidecar_url")
        self.desktop = Desktop(desktop_url, token=token, sidecar_url=sidecar_url, timeout=timeout)
        self.observer = Observer(self.desktop, ObserveOptions(
            screenshot_format=screenshot_format, screenshot_size=tuple(screenshot_size) if screenshot_size else None,
            observe_layout=observe_layout, settle_s=settle_s, settle_quiet_s=settle_quiet_s,
            settle_browser=settle_browser))
        self.action_format = action_format
        self.reward_fn, self.terminate_fn = reward_fn, terminate_fn
        self.record_dir, self.record_video = record_dir, record_video
        self.default_urls = list(urls)
        self.max_steps = max_steps
        self.render_mode = render_mode
        width, height = self.observer.scaling.display
        self.size = (width, height)
        obs = {"screenshot": spaces.Box(0, 255, (height, width, 3), np.uint8),
               "windows": spaces.Text(MAX_JSON_CHARS, min_length=0, charset=JSON_CHARSET)}
        if observe_layout:
            obs["layout"] = spaces.Text(MAX_JSON_CHARS, min_length=0, charset=JSON_CHARSET)
        self.observation_space = spaces.Dict(obs)
        self.action_space = spaces.Dict({
            "type": spaces.Discrete(len(SPACE_TYPES)), "x": spaces.Discrete(width),
            "y": spaces.Discrete(height), "scroll": spaces.Discrete(len(SCROLL_STEPS)),
            "text": spaces.Text(16, min_length=1, charset=TYPED_CHARSET)})
        self._last: Observation | None = None
        self._frame: np.ndarray | None = None
        self._writer: EpisodeWriter | None = None
        self._video: VideoClock | None = None
        self._steps = 0
        self._total_reward = 0.0

    # -- observations ---------------------------------------------------------------------------
    def _frame_of(self, observation: Observation) -> np.ndarray:
        frame = observation.screenshot.array()
        if frame.shape[:2] != (self.size[1], self.size[0]):
            from PIL import Image
            frame = np.asarray(Image.fromarray(frame).resize(self.size, Image.Resampling.BILINEAR))
        return np.ascontiguousarray(frame, dtype=np.uint8)

    def _observe(self, observed: Observation | None = None) -> dict:
        self._last = observed or self.observer.observe()
        self._frame = self._frame_of(self._last)
        out = {"screenshot": self._frame.copy(), "windows": _json_text(self._last.windows)}
        if self._last.layout is not None:
            out["layout"] = _json_text(self._last.layout)
        return out

    # -- the Gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self._finish_episode(truncated=True)
        urls = list((options or {}).get("urls", self.default_urls))
        # No URLs: the browser's own start pages (and no 422 from a desktopd without a sidecar).
        answer = self.desktop.reset(urls or None)
        self._steps, self._total_reward = 0, 0.0
        if self.record_dir:
            episode_id = (options or {}).get("episode_id") or new_episode_id()
            import os
            self._writer = EpisodeWriter(os.path.join(self.record_dir, episode_id), episode_fields(
                self.desktop, self.observer, episode_id, urls, {"seed": seed, **(options or {}).get("metadata", {})}))
            if self.record_video:
                self._video = VideoClock(self.desktop)
                self._writer.set_recording(self._video.start())
        observation = self._observe()
        return observation, {"reset": answer, "episode_id": self._writer.episode_id if self._writer else None,
                             "record_dir": str(self._writer.dir) if self._writer else None}

    def step(self, action: Mapping[str, object]) -> tuple[dict, float, bool, bool, dict]:
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        before = self._last
        action = self.from_space(action)
        acted, observed = self.observer.step(action, before, self.action_format)
        observation = self._observe(observed)
        self._steps += 1
        info = self._info(acted)
        reward = float(self.reward_fn(observation, action, info)) if self.reward_fn else 0.0
        terminated = bool(self.terminate_fn(observation, info)) if self.terminate_fn else False
        truncated = self.max_steps is not None and self._steps >= self.max_steps and not terminated
        self._total_reward += reward
        if self._writer is not None:
            self._writer.write_step(before, acted, reward=reward, terminated=terminated, truncated=truncated,
                                    info={"step": self._steps},
                                    video_time_s=self._video.at(acted.act.wall) if self._video else None)
            if terminated or truncated:
                self._finish_episode(terminated=terminated, truncated=truncated)
        return observation, reward, terminated, truncated, info

    def _info(self, acted: Acted) -> dict:
        done = acted.executed
        return {"step": self._steps, "format": done.format, "executed": dict(done.executed),
                "element": acted.element, "error": acted.error, "settled": acted.settled,
                "pointer": list(self._last.pointer) if self._last and self._last.pointer else None}

    @staticmethod
    def from_space(action: Mapping[str, object]) -> Mapping[str, object]:
        """A sample of action_space (``type`` an integer) as our own format; others unchanged."""
        kind = action.get("type")
        if isinstance(kind, (int, np.integer)) and not isinstance(kind, bool):
            name = SPACE_TYPES[int(kind)]
            x, y = _space_int(action["x"]), _space_int(action["y"])
            if name == "scroll":
                return {"type": "scroll", "x": x, "y": y, "dy": SCROLL_STEPS[_space_int(action["scroll"])]}
            if name == "type":
                return {"type": "type", "text": str(action["text"])}
            if name == "noop":
                return {"type": "noop"}
            return {"type": name, "x": x, "y": y}
        return action

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._frame is None:
            return None
        return self._frame.copy()

    def _finish_episode(self, *, terminated: bool = False, truncated: bool = False) -> None:
        if self._writer is None:
            return
        if self._video is not None:
            # The video comes home into the episode directory (or the record says it was lost).
            self._writer.episode["recording"] = self._video.finish(self._writer.dir, self._writer.video_times)
            self._video = None
        self._writer.close({"total_reward": self._total_reward, "terminated": terminated, "truncated": truncated})
        self._writer = None

    def close(self) -> None:
        self._finish_episode(truncated=True)
        self.desktop.close()


def register() -> None:
    """Registers ENV_ID with Gymnasium (gymnasium.make(ENV_ID, desktop_url=...))."""
    if ENV_ID not in gym.registry:
        gym.register(ENV_ID, entry_point="desktopd_kit.env:DesktopEnv", nondeterministic=True,
                     disable_env_checker=True)


def make_vector_env(urls: Sequence[str], *, sidecar_urls: Sequence[str | None] | None = None,
                    asynchronous: bool = False, **kwargs: Any) -> gym.vector.VectorEnv:
    """One DesktopEnv per desktopd URL (with the sidecar of the same index), as a Gymnasium vector
    env; ``asynchronous`` runs each in its own process. Every env must observe the same size:
    pass screenshot_size when the screens differ."""
    sidecars = list(sidecar_urls) if sidecar_urls is not None else [None] * len(urls)
    if len(sidecars) != len(urls):
        raise ValueError("sidecar_urls must have one entry per desktop URL")
    makers = [lambda u=u, s=s: DesktopEnv(u, sidecar_url=s, **kwargs) for u, s in zip(urls, sidecars)]
    vector = gym.vector.AsyncVectorEnv if asynchronous else gym.vector.SyncVectorEnv
    return vector(makers)
