"""Rollouts on a Ray cluster: each actor owns one desktop, runs the user's policy for an episode,
and takes the next; results stream back as episodes finish.

Failover, at two levels:
- a desktop that dies mid-episode (its container killed, its pod gone) is replaced by the actor,
  and the episode runs again on the new one (`EpisodeResult.attempts`, `RolloutStats`);
- an actor that dies (its node lost) is replaced by a new actor and its episode resubmitted.

Resources: every actor declares the memory its desktop takes (`memory_per_desktop`), so Ray packs
desktops onto nodes by memory, not only by CPU. Ray is imported when a runner is made, not at
import: the rest of the package works without it."""

from __future__ import annotations

import functools
import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from .episodes import EpisodeResult, EpisodeSpec, Policy, StepEnv, run_episode
from .provision import DesktopLost, Lease

log = logging.getLogger(__name__)

GIB = 1024 ** 3


class DesktopSource(Protocol):
    """Gives a worker a desktop: starts one (DockerDesktops) or hands out a running one."""

    def start(self) -> Lease: ...

    def for_worker(self, index: int) -> DesktopSource:
        """The source worker ``index`` draws from (attached desktops: its own share)."""

    def cleanup(self) -> None:
        """Ends whatever desktops of this source are left (those of actors that died)."""


EnvFactory = Callable[[Lease], StepEnv]


@dataclass
class RolloutStats:
    episodes: int = 0
    episode_retries: int = 0          # episodes run again after their desktop died
    desktops_replaced: int = 0
    desktop_start_failures: int = 0   # desktops that died before they were healthy (started anew)
    actors_replaced: int = 0


class DesktopWorker:
    """The body of one actor: a desktop, the environment on it, the policy. Made a Ray actor by
    RolloutRunner; usable as is in-process."""

    def __init__(self, source: DesktopSource, env_factory: EnvFactory, policy: Policy,
                 max_attempts: int = 3) -> None:
        self._source = source
        self._env_factory = env_factory
        self._policy = policy
        self._max_attempts = max_attempts
        self._lease: Lease | None = None
        self._env: StepEnv | None = None
        self.desktops_replaced = 0
        self.start_failures = 0          # desktops that died while starting

    def desktop(self) -> dict:
        """The desktop this worker holds now (its name and URLs), starting one if it has none."""
        lease = self._ensure_desktop()
        return {"name": lease.name, "desktopd_url": lease.endpoint.desktopd_url,
                "sidecar_url": lease.endpoint.sidecar_url}

    def run(self, spec: EpisodeSpec) -> EpisodeResult:
        """The episode, retried on a new desktop when its desktop died under it."""
        failures_before = self.start_failures
        for attempt in range(1, self._max_attempts + 1):
            lease = self._ensure_desktop()
            try:
                result = run_episode(self._ensured_env(lease), self._policy, spec, attempt)
            except Exception as error:  # noqa: BLE001 - sorted below: the desktop's death or the policy's bug
                if lease.alive():
                    raise  # the desktop is fine: the error is the episode's own
                log.warning("desktop %s died during episode %s (%s): replacing it", lease.name,
                            spec.episode_id, error)
                self._drop_desktop()
                self.desktops_replaced += 1
                if attempt == self._max_attempts:
                    raise DesktopLost(f"episode {spec.episode_id}: {attempt} desktops died under it") from error
                continue
            result.attempts, result.desktop, result.node = attempt, lease.name, _node_ip()
            result.desktop_start_failures = self.start_failures - failures_before
            return result
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._drop_desktop()

    def _ensure_desktop(self) -> Lease:
        """The worker's desktop, started if it has none. One that dies before it is healthy (a
        program of it failing under load) is started anew, up to max_attempts starts: the fault
        stays with that desktop instead of failing the whole rollout."""
        if self._lease is not None:
            return self._lease
        for attempt in range(1, self._max_attempts + 1):
            try:
                self._lease = self._source.start()
                return self._lease
            except DesktopLost as error:
                self.start_failures += 1
                if attempt == self._max_attempts:
                    raise DesktopLost(f"no desktop started in {attempt} attempts; the last: {error}") from error
                log.warning("a desktop died while starting (%s): starting another", error)
        raise AssertionError("unreachable")

    def _ensured_env(self, lease: Lease) -> StepEnv:
        if self._env is None:
            self._env = self._env_factory(lease)
        return self._env

    def _drop_desktop(self) -> None:
        env, lease = self._env, self._lease
        self._env = self._lease = None
        if env is not None:
            try:
                env.close()
            except Exception:  # noqa: BLE001 - closing a client of a dead desktop may fail; the lease still goes
                log.debug("closing the env of a dead desktop failed", exc_info=True)
        if lease is not None:
            lease.release()


@functools.cache
def _actor_class():
    """DesktopWorker as a Ray actor class, made once (Ray is imported only when a runner runs)."""
    import ray

    return ray.remote(DesktopWorker)


def _node_ip() -> str:
    try:
        import ray

        return ray.util.get_node_ip_address() if ray.is_initialized() else ""
    except ImportError:
        return ""


@dataclass
class RolloutRunner:
    """N actors, each with one desktop, working through a list of episodes.

    Used as is, each `run()` starts its actors (and their desktops) and stops them at its end.
    Used as a context manager (or between `start()` and `close()`), the actors and their desktops
    stay up across `run()` calls: a training loop's rollout batches skip the desktops' start.

    memory_per_desktop: bytes Ray reserves per actor (the desktop's measured footprint);
    num_cpus: CPUs reserved per actor (fractions allowed)."""
    source: DesktopSource
    env_factory: EnvFactory
    policy: Policy
    workers: int = 1
    memory_per_desktop: int = 1 * GIB
    num_cpus: float = 0.5
    max_attempts: int = 3
    stats: RolloutStats = field(default_factory=RolloutStats)
    _actors: list = field(default_factory=list, init=False, repr=False)

    def __enter__(self) -> RolloutRunner:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> list[dict]:
        """Starts the actors and has each start its desktop now; returns the desktops (name,
        URLs). Until `close()`, `run()` reuses them."""
        import ray

        if not self._actors:
            self._actors = [self._new_actor(index) for index in range(self.workers)]
        try:
            return ray.get([actor.desktop.remote() for actor in self._actors])
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stops the actors (each removes its desktop) and cleans up what dead ones left."""
        actors, self._actors = self._actors, []
        try:
            if actors:
                self._stop(actors)
        finally:
            self.source.cleanup()

    def run(self, episodes: Iterable[EpisodeSpec]) -> Iterator[EpisodeResult]:
        """Results in the order episodes finish. Without `start()`, every actor is stopped (and
        its desktop removed) when the iteration ends, also when the caller stops early."""
        import ray

        kept = bool(self._actors)
        if not kept:
            self._actors = [self._new_actor(index) for index in range(self.workers)]
        actors = self._actors
        pending = deque(episodes)
        running: dict = {}  # ObjectRef -> (actor, spec)
        try:
            for actor in actors:
                self._submit(actor, pending, running)
            while running:
                done, _ = ray.wait(list(running), num_returns=1)
                ref = done[0]
                actor, spec = running.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayActorError:
                    if self.stats.actors_replaced >= self.workers * self.max_attempts:
                        raise
                    log.warning("actor of episode %s died: a new one takes it", spec.episode_id)
                    self.stats.actors_replaced += 1
                    index = actors.index(actor)
                    actor = actors[index] = self._new_actor(index)
                    pending.appendleft(spec)
                    self._submit(actor, pending, running)
                    continue
                self.stats.episodes += 1
                self.stats.episode_retries += result.attempts - 1
                self.stats.desktops_replaced += result.attempts - 1
                self.stats.desktop_start_failures += result.desktop_start_failures
                yield result
                self._submit(actor, pending, running)
        finally:
            if not kept:
                self.close()

    def _new_actor(self, index: int):
        return _actor_class().options(num_cpus=self.num_cpus, memory=self.memory_per_desktop,
                                      max_restarts=0).remote(self.source.for_worker(index), self.env_factory,
                                                             self.policy, self.max_attempts)

    @staticmethod
    def _submit(actor, pending: deque, running: dict) -> None:
        if pending:
            spec = pending.popleft()
            running[actor.run.remote(spec)] = (actor, spec)

    @staticmethod
    def _stop(actors: list) -> None:
        import ray

        closing = [actor.close.remote() for actor in actors]
        try:
            ray.get(closing, timeout=120)
        except Exception:  # noqa: BLE001 - a dead actor cannot close; its desktop's node cleans up below
            log.warning("some actors could not close their desktops", exc_info=True)
        for actor in actors:
            ray.kill(actor)
