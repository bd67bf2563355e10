"""DesktopWorker and run_episode without Ray or desktops: fakes stand in for the lease and the
environment (unit tests only; tests/fleet/test_ray_cluster.py runs the real thing)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from desktopd_fleet.episodes import EpisodeSpec, run_episode
from desktopd_fleet.provision import DesktopLost, Endpoint
from desktopd_fleet.ray_runner import DesktopWorker


@dataclass
class FakeLease:
    name: str
    dead: bool = False
    released: bool = False
    endpoint: Endpoint = field(default_factory=lambda: Endpoint("http://127.0.0.1:1"))

    def alive(self) -> bool:
        return not self.dead

    def release(self) -> None:
        self.released = True


@dataclass
class FakeSource:
    leases: list[FakeLease] = field(default_factory=list)

    def start(self) -> FakeLease:
        lease = FakeLease(f"desk-{len(self.leases)}")
        self.leases.append(lease)
        return lease

    def for_worker(self, index: int) -> FakeSource:
        return self

    def cleanup(self) -> None:
        pass


class CountingEnv:
    """Ends the episode after `length` steps; kills its lease at step `die_at` (once)."""

    def __init__(self, lease: FakeLease, length: int = 3, die_at: int | None = None) -> None:
        self.lease, self.length, self.die_at, self.t, self.closed = lease, length, die_at, 0, False

    def reset(self, *, seed=None, options=None):
        self.t, self.options = 0, options
        return {"t": 0}, {"record_dir": f"/records/{options['episode_id']}"}

    def step(self, action):
        if self.die_at is not None and self.t == self.die_at:
            self.lease.dead = True
            raise ConnectionError("desktop gone")
        self.t += 1
        return {"t": self.t}, 1.0, self.t >= self.length, False, {}

    def close(self):
        self.closed = True


def test_an_episode_runs_to_termination_and_counts_reward() -> None:
    lease = FakeLease("d")
    result = run_episode(CountingEnv(lease, length=3), lambda obs: {"action": "wait"}, EpisodeSpec("e1"))
    assert (result.steps, result.total_reward, result.terminated, result.truncated) == (3, 3.0, True, False)
    assert len(result.step_s) == 3


def test_the_step_budget_truncates() -> None:
    result = run_episode(CountingEnv(FakeLease("d"), length=99), lambda obs: {}, EpisodeSpec("e", max_steps=4))
    assert (result.steps, result.terminated, result.truncated) == (4, False, True)


def test_a_dead_desktop_is_replaced_and_the_episode_run_again() -> None:
    source = FakeSource()
    made: list[CountingEnv] = []

    def factory(lease):
        env = CountingEnv(lease, die_at=1 if not made else None)
        made.append(env)
        return env

    worker = DesktopWorker(source, factory, lambda obs: {})
    result = worker.run(EpisodeSpec("e"))
    assert result.attempts == 2 and result.desktop == "desk-1" and result.steps == 3
    # Each attempt records under its own id: the lost one's partial record stays beside the retry's.
    assert [env.options["episode_id"] for env in made] == ["e", "e-attempt2"]
    assert made[1].options["metadata"] == {"episode_id": "e", "attempt": 2}
    assert result.record_dir == "/records/e-attempt2"
    assert worker.desktops_replaced == 1
    assert source.leases[0].released and made[0].closed and not source.leases[1].released
    worker.close()
    assert source.leases[1].released


def test_an_error_of_the_episode_itself_is_not_retried() -> None:
    source = FakeSource()

    def policy(obs):
        raise ValueError("policy bug")

    worker = DesktopWorker(source, lambda lease: CountingEnv(lease), policy)
    with pytest.raises(ValueError, match="policy bug"):
        worker.run(EpisodeSpec("e"))
    assert len(source.leases) == 1 and worker.desktops_replaced == 0


def test_retries_are_bounded() -> None:
    source = FakeSource()
    worker = DesktopWorker(source, lambda lease: CountingEnv(lease, die_at=0), lambda obs: {}, max_attempts=2)
    with pytest.raises(DesktopLost):
        worker.run(EpisodeSpec("e"))
    assert len(source.leases) == 2 and all(lease.released for lease in source.leases)


@dataclass
class FailingStarts(FakeSource):
    """Its first ``failures`` desktops die before they are healthy."""
    failures: int = 0

    def start(self) -> FakeLease:
        if self.failures > 0:
            self.failures -= 1
            raise DesktopLost("desk stopped before it was healthy")
        return super().start()


def test_a_desktop_that_dies_while_starting_is_started_anew() -> None:
    source = FailingStarts(failures=2)
    worker = DesktopWorker(source, lambda lease: CountingEnv(lease), lambda obs: {}, max_attempts=3)
    result = worker.run(EpisodeSpec("e"))
    assert result.steps == 3 and result.attempts == 1 and result.desktop == "desk-0"
    assert result.desktop_start_failures == 2 and worker.start_failures == 2
    # The next episode on the same desktop had no start to fail.
    assert worker.run(EpisodeSpec("f")).desktop_start_failures == 0


def test_desktop_starts_are_bounded() -> None:
    worker = DesktopWorker(FailingStarts(failures=5), lambda lease: CountingEnv(lease), lambda obs: {},
                           max_attempts=2)
    with pytest.raises(DesktopLost, match="no desktop started in 2 attempts"):
        worker.run(EpisodeSpec("e"))
    assert worker.start_failures == 2
