"""One episode on one desktop: reset, then policy → step until the episode ends or its step
budget runs out. Pure of Ray, so it runs (and is tested) the same inside an actor or in-process."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

Observation = Mapping[str, object]
Action = Mapping[str, object]


class StepEnv(Protocol):
    """What a rollout needs of an environment: Gymnasium's reset/step/close."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Observation, dict]: ...

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, dict]: ...

    def close(self) -> None: ...


class Policy(Protocol):
    """The user's policy: an observation in, an action out (Anthropic, OpenAI or our own format)."""

    def __call__(self, observation: Observation) -> Action: ...


@dataclass(frozen=True)
class EpisodeSpec:
    episode_id: str
    urls: tuple[str, ...] = ()
    seed: int | None = None
    max_steps: int = 20


@dataclass
class EpisodeResult:
    episode_id: str
    steps: int
    total_reward: float
    terminated: bool
    truncated: bool
    desktop: str = ""                  # the lease's name
    node: str = ""                     # the Ray node's IP (empty in-process)
    attempts: int = 1                  # 1 + how often it was retried on a new desktop
    desktop_start_failures: int = 0    # desktops that died while starting, before it ran
    record_dir: str | None = None      # where the env wrote the episode's record (DesktopEnv's record_dir)
    reset_s: float = 0.0
    step_s: list[float] = field(default_factory=list)   # wall time of each step call

    @property
    def steps_per_s(self) -> float:
        total = sum(self.step_s)
        return self.steps / total if total > 0 else 0.0


def record_id(spec: EpisodeSpec, attempt: int) -> str:
    """The record directory's name of an attempt: the episode id, then ``<id>-attempt2``, ...
    (a retried episode keeps the partial record of the desktop that died under it)."""
    return spec.episode_id if attempt == 1 else f"{spec.episode_id}-attempt{attempt}"


def run_episode(env: StepEnv, policy: Policy | Callable[[Observation], Action], spec: EpisodeSpec,
                attempt: int = 1) -> EpisodeResult:
    """Reset with the episode's start URLs, seed and record id (DesktopEnv's ``episode_id``
    option; ``metadata`` says which episode and attempt), then step the policy's actions."""
    options: dict = {"episode_id": record_id(spec, attempt),
                     "metadata": {"episode_id": spec.episode_id, "attempt": attempt}}
    if spec.urls:
        options["urls"] = list(spec.urls)
    started = time.monotonic()
    observation, info = env.reset(seed=spec.seed, options=options)
    result = EpisodeResult(spec.episode_id, 0, 0.0, False, False, reset_s=time.monotonic() - started,
                           record_dir=info.get("record_dir") if isinstance(info, Mapping) else None)
    while result.steps < spec.max_steps and not (result.terminated or result.truncated):
        action = policy(observation)
        started = time.monotonic()
        observation, reward, result.terminated, result.truncated, info = env.step(action)
        result.step_s.append(time.monotonic() - started)
        result.steps += 1
        result.total_reward += float(reward)
    if not (result.terminated or result.truncated):
        result.truncated = True  # the step budget ended it
    return result
