"""RolloutRunner on a real Ray cluster of two nodes (LocalRayCluster: 127.0.0.2 and 127.0.0.3),
driving real Chromium desktop containers through the harness kit's DesktopEnv, with a desktop
killed (docker kill) mid-run: the episode it was running is run again on a new desktop.

Everything started here is stopped here: the Ray nodes by the PIDs of the processes this started,
the containers by their label (DockerDesktops.cleanup, and each lease's own release)."""

from __future__ import annotations

import ipaddress
import os
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import requests

from desktopd_fleet.episodes import EpisodeResult, EpisodeSpec
from desktopd_fleet.local_cluster import LocalRayCluster
from desktopd_fleet.provision import DockerDesktops, Lease
from desktopd_fleet.ray_runner import GIB, RolloutRunner
from testbed.capability import docker_available, require
from tests.containers.support import CHROMIUM_IMAGE, build_images
from tests.fleet.support import fleet_containers

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3
EPISODES = 7
STEPS = 4
OBSERVATION_SIZE = (640, 400)
PAGE = "data:text/html," + quote(
    "<title>fleet</title><button style='position:fixed;inset:0;font-size:48px' "
    "onclick=\"this.textContent='pressed '+(+this.dataset.n+1);this.dataset.n=+this.dataset.n+1\" "
    "data-n=0>press</button>")


def make_env(lease: Lease):
    """The env factory: runs inside each actor, on the node its desktop runs on."""
    from desktopd_kit.env import DesktopEnv

    endpoint = lease.endpoint
    return DesktopEnv(endpoint.desktopd_url, sidecar_url=endpoint.sidecar_url, token=endpoint.token,
                      screenshot_size=OBSERVATION_SIZE, settle_s=0.05)


class PressTheMiddle:
    """A user policy: looks at the screenshot's size and clicks its middle (our own format)."""

    def __call__(self, observation) -> dict:
        height, width = observation["screenshot"].shape[:2]
        return {"type": "click", "x": width // 2, "y": height // 2}


def shows_the_episode_page(container) -> bool:
    """Whether the desktop's browser shows PAGE: its worker reset it for an episode."""
    container.reload()
    published = container.ports.get("8122/tcp") if container.status == "running" else None
    if not published:
        return False
    env = dict(item.split("=", 1) for item in container.attrs["Config"]["Env"] if "=" in item)
    try:
        tabs = requests.get(f"http://127.0.0.1:{published[0]['HostPort']}/tabs", timeout=5,
                            headers={"Authorization": f"Bearer {env.get('DESKTOPD_TOKEN', '')}"}).json()
    except (requests.RequestException, ValueError):
        return False
    return isinstance(tabs, list) and any(tab.get("title") == "fleet" for tab in tabs)


def a_desktop_mid_episode(prefix: str, other_than: str):
    """A desktop of the fleet, not ``other_than``, whose worker is in an episode (bounded wait)."""
    for _ in range(240):
        for container in fleet_containers(prefix):
            if container.name != other_than and shows_the_episode_page(container):
                return container
        time.sleep(0.25)
    raise AssertionError("no other desktop was ever in an episode")


def test_rollouts_on_two_nodes_survive_a_killed_desktop(tmp_path: Path) -> None:
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    build_images()
    prefix = f"desktopd-fleet-test-{os.getpid()}"
    source = DockerDesktops(image=CHROMIUM_IMAGE, name_prefix=prefix, env={"WIDTH": "1280", "HEIGHT": "800"})
    # The workers import this checkout's packages (and this module, for the policy and factory).
    cluster = LocalRayCluster(nodes=2, cpus_per_node=2, log_dir=str(tmp_path / "ray"),
                              env={"PYTHONPATH": str(ROOT)})
    import ray

    results: list[EpisodeResult] = []
    killed = None
    cluster.start()
    cluster_pids = cluster.process_ids()
    try:
        ray.init(address=cluster.address, _node_ip_address=cluster.head_ip, logging_level="WARNING")
        assert sorted(node["NodeManagerAddress"] for node in ray.nodes() if node["Alive"]) == cluster.node_ips()
        runner = RolloutRunner(source, make_env, PressTheMiddle(), workers=WORKERS, num_cpus=1,
                               memory_per_desktop=1 * GIB)
        episodes = [EpisodeSpec(f"episode-{i}", urls=(PAGE,), seed=i, max_steps=STEPS) for i in range(EPISODES)]
        for result in runner.run(episodes):
            results.append(result)
            if killed is None:
                # Kill the desktop of a worker that is mid-episode (the queue is not empty). Not
                # just any running one: a desktop still starting is not in an episode yet (its
                # worker starts another, no episode is retried).
                others = [c for c in fleet_containers(prefix) if c.name != result.desktop and c.status == "running"]
                assert len(others) == WORKERS - 1
                victim = a_desktop_mid_episode(prefix, other_than=result.desktop)
                killed = victim.name
                victim.kill()
                check_sockets(cluster)
        stats = runner.stats
        left_after_run = fleet_containers(prefix)
        batches = run_two_batches_on_kept_desktops(source, prefix)
        ray.shutdown()
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()
        source.cleanup()

    assert sorted(r.episode_id for r in results) == sorted(e.episode_id for e in episodes)   # each once
    assert all(r.steps == STEPS and r.truncated and not r.terminated for r in results)
    assert {r.node for r in results} == set(cluster.node_ips())                             # both nodes worked
    retried = [r for r in results if r.attempts > 1]
    assert retried and all(r.desktop != killed for r in retried)
    assert stats.episodes == EPISODES and stats.desktops_replaced >= 1
    assert stats.episode_retries == sum(r.attempts - 1 for r in results) >= 1
    assert left_after_run == []           # run() alone stops its actors and their desktops
    started, first, second = batches          # start(): the desktops stay up across run() calls
    assert {r.desktop for r in first} | {r.desktop for r in second} <= started
    assert all(r.attempts == 1 for r in first + second)
    print(f"{stats}; killed {killed}; episodes per node "
          f"{ {ip: sum(r.node == ip for r in results) for ip in cluster.node_ips()} }")
    # nothing left running: no desktop container, no process of the cluster
    assert fleet_containers(prefix) == []
    assert [pid for pid in cluster_pids if Path(f"/proc/{pid}").exists()] == []


def run_two_batches_on_kept_desktops(source: DockerDesktops, prefix: str):
    """start(), two batches of episodes, close(): the desktops of both batches are the ones
    start() made, and close() removes them."""
    runner = RolloutRunner(source, make_env, PressTheMiddle(), workers=WORKERS, num_cpus=1,
                           memory_per_desktop=1 * GIB)
    try:
        started = {desktop["name"] for desktop in runner.start()}
        assert {c.name for c in fleet_containers(prefix)} == started and len(started) == WORKERS
        batch = [EpisodeSpec(f"kept-{i}", urls=(PAGE,), max_steps=2) for i in range(WORKERS)]
        first, second = list(runner.run(batch)), list(runner.run(batch))
        assert {c.name for c in fleet_containers(prefix)} == started       # none started, none removed
    finally:
        runner.close()
    assert fleet_containers(prefix) == []
    return started, first, second


def check_sockets(cluster: LocalRayCluster) -> None:
    """Every connection of the cluster is loopback to loopback; nothing listens on a specific
    non-loopback address. Ray's GCS, raylets and workers listen on the wildcard address whatever
    --node-ip-address says (docs/ray.md): those are listed, not failed."""
    sockets = cluster.sockets()
    connected = [s for s in sockets if not s.listening]
    assert connected and all(s.loopback_only for s in connected), [s for s in connected if not s.loopback_only]
    specific = [s for s in sockets if s.listening and not s.loopback_only
                and not ipaddress.ip_address(s.local).is_unspecified]
    assert specific == []
    wildcard = sorted({s.command for s in sockets if s.listening and not s.loopback_only})
    print(f"Ray processes listening on the wildcard address: {', '.join(wildcard) or 'none'}")
