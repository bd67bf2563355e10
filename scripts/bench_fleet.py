#!/usr/bin/env python3
"""Benchmark a fleet: RolloutRunner on a local two-node Ray cluster (127.0.0.2, 127.0.0.3), each
actor driving its own Chromium desktop container through the harness kit's DesktopEnv, for pools
of 1, 2 and 4 desktops. Per pool size it measures:
  * start to first step: runner.run() -> the first (and the last) desktop's first step done
    (container start, both /health ok, env made, reset, one step);
  * aggregate steps/s while stepping: each worker's steps / its time in env.step, summed;
  * memory per desktop: `docker stats` of the pool's containers, sampled while they step;
  * CPU per step: the containers' CPU time plus the Ray processes' (GCS, raylets, the actors
    and their env clients) over the measured window, divided by the steps in it.
The 1-desktop pool is the baseline: the other pools print their aggregate rate against it and
their scaling efficiency (aggregate / (n x baseline)). Then an extrapolation to a bigger node and to
100 desktops from these figures, with its assumptions.

A step: the policy clicks (our own action format), DesktopEnv waits its settle time and observes
(a screenshot scaled to 640x400). Needs the images (scripts/build-images.sh) and the fleet and kit
extras. Usage: .venv/bin/python scripts/bench_fleet.py [--sizes 1,2,4] [--steps 15] [--image ...]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
GIB = 1024 ** 3
PAGE = "data:text/html," + quote(
    "<title>bench</title><button style='position:fixed;inset:0;font-size:48px' "
    "onclick=\"this.textContent=Date.now()\">press</button>")
OBSERVATION_SIZE = (640, 400)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def make_env(lease):
    from desktopd_kit.env import DesktopEnv

    endpoint = lease.endpoint
    return DesktopEnv(endpoint.desktopd_url, sidecar_url=endpoint.sidecar_url, token=endpoint.token,
                      screenshot_size=OBSERVATION_SIZE, settle_s=0.05)


def press_the_middle(observation) -> dict:
    height, width = observation["screenshot"].shape[:2]
    return {"type": "click", "x": width // 2, "y": height // 2}


def process_cpu_seconds(pids: set[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])   # utime, stime
    return total / CLOCK_TICKS


@dataclass
class PoolSample:
    memory: dict[str, int] = field(default_factory=dict)     # container name -> bytes (peak seen)
    cpu_ns: dict[str, int] = field(default_factory=dict)     # container name -> cpu total (ns)


def sample_pool(client, prefix: str) -> PoolSample:
    from desktopd_fleet.provision import LABEL, container_memory_bytes

    sample = PoolSample()
    for container in client.containers.list(filters={"label": f"{LABEL}={prefix}"}):
        try:
            stats = container.stats(stream=False, one_shot=True)
        except Exception:  # noqa: BLE001 - a container going away has no figure
            continue
        memory = container_memory_bytes(stats)
        if memory is not None:
            sample.memory[container.name] = memory
        sample.cpu_ns[container.name] = int(stats["cpu_stats"]["cpu_usage"]["total_usage"])
    return sample


@dataclass
class PoolResult:
    size: int
    first_step_s: float
    all_first_steps_s: float
    steps: int
    steps_per_s: float
    memory_mean: float
    memory_peak: float
    cpu_s_per_step: float


def run_pool(size: int, steps: int, episodes_per_desktop: int, image: str, cluster) -> PoolResult:
    import docker

    from desktopd_fleet.episodes import EpisodeSpec
    from desktopd_fleet.provision import DockerDesktops
    from desktopd_fleet.ray_runner import RolloutRunner

    client = docker.from_env()
    prefix = f"desktopd-bench-{os.getpid()}-{size}"
    source = DockerDesktops(image=image, name_prefix=prefix, env={"WIDTH": "1280", "HEIGHT": "800"})
    runner = RolloutRunner(source, make_env, press_the_middle, workers=size, num_cpus=1,
                           memory_per_desktop=1 * GIB)
    warmups = [EpisodeSpec(f"warmup-{i}", urls=(PAGE,), max_steps=1) for i in range(size)]
    measured = [EpisodeSpec(f"episode-{i}", urls=(PAGE,), max_steps=steps)
                for i in range(size * episodes_per_desktop)]
    started = time.monotonic()
    first = last_warmup = None
    window_start = None
    peak: dict[str, int] = {}
    step_time: dict[str, float] = {}
    step_count: dict[str, int] = {}
    warm_done = 0
    last_sample = 0.0
    for result in runner.run(warmups + measured):
        now = time.monotonic()
        if result.episode_id.startswith("warmup-"):
            warm_done += 1
            first = first if first is not None else now - started
            if warm_done == size:
                last_warmup = now - started
                window_start = (now, sample_pool(client, prefix), process_cpu_seconds(cluster.process_ids()))
            continue
        step_time[result.desktop] = step_time.get(result.desktop, 0.0) + sum(result.step_s)
        step_count[result.desktop] = step_count.get(result.desktop, 0) + result.steps
        if now - last_sample > 2.0 or sum(step_count.values()) == steps * len(measured):
            sample = sample_pool(client, prefix)
            for name, memory in sample.memory.items():
                peak[name] = max(peak.get(name, 0), memory)
            last_sample = now
            window_end = (now, sample, process_cpu_seconds(cluster.process_ids()))
    total_steps = sum(step_count.values())
    (_, start_sample, start_host), (_, end_sample, end_host) = window_start, window_end
    container_cpu = sum(end_sample.cpu_ns[name] - start_sample.cpu_ns.get(name, 0)
                        for name in end_sample.cpu_ns if name in start_sample.cpu_ns) / 1e9
    host_cpu = end_host - start_host
    rate = sum(step_count[d] / step_time[d] for d in step_time if step_time[d] > 0)
    return PoolResult(size, first, last_warmup, total_steps, rate,
                      sum(peak.values()) / len(peak) / GIB, max(peak.values()) / GIB,
                      (container_cpu + host_cpu) / total_steps)


def extrapolate(results: list[PoolResult], node_cores: int, node_memory_gib: float) -> None:
    base = results[0]
    memory = max(r.memory_peak for r in results) * 1.25      # the peak seen plus a quarter headroom
    cpu_per_step = sum(r.cpu_s_per_step for r in results) / len(results)
    rate_alone = base.steps_per_s                              # one desktop with the CPU to itself
    cores_per_busy_desktop = rate_alone * cpu_per_step
    by_memory = int(node_memory_gib * 0.9 // memory)           # 10% of the node for the system
    by_cpu = int(node_cores // cores_per_busy_desktop) if cores_per_busy_desktop else by_memory
    per_node = min(by_memory, by_cpu)
    node_rate = min(per_node * rate_alone, node_cores / cpu_per_step)
    print(f"\nextrapolation (assumptions: steps are CPU-bound and scale linearly with cores; a desktop "
          f"steps at most at its measured rate alone, {rate_alone:.2f}/s; memory per desktop is the peak "
          f"seen x 1.25 = {memory:.2f} GiB; CPU per step {cpu_per_step:.3f} s (containers + Ray + env "
          f"clients, mean over the pools); 10% of a node's memory kept for the system; the same step: a "
          f"click and a 640x400 observation)")
    print(f"{'':26} {'memory GiB':>11} {'CPU cores':>10} {'steps/s':>9}")
    print(f"{'one desktop, stepping':26} {memory:>11.2f} {cores_per_busy_desktop:>10.2f} {rate_alone:>9.2f}")
    print(f"{'this machine (2c/24G)':26} "
          f"{'':>11} {'':>10} {min(2 / cpu_per_step, results[-1].size * rate_alone):>9.2f}"
          f"   measured at {results[-1].size} desktops: {results[-1].steps_per_s:.2f}")
    print(f"{f'node {node_cores}c/{node_memory_gib:.0f}G: {per_node} desktops':26} {per_node * memory:>11.1f} "
          f"{min(node_cores, per_node * cores_per_busy_desktop):>10.1f} {node_rate:>9.1f}")
    print(f"{'100 desktops, all stepping':26} {100 * memory:>11.1f} {100 * cores_per_busy_desktop:>10.1f} "
          f"{100 * rate_alone:>9.1f}   ({-(-100 // max(per_node, 1))} such nodes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4", help="pool sizes, the first is the baseline")
    parser.add_argument("--steps", type=int, default=15, help="steps per measured episode")
    parser.add_argument("--episodes-per-desktop", type=int, default=2)
    parser.add_argument("--image", default="desktopd/chromium:latest")
    parser.add_argument("--node-cores", type=int, default=16, help="the node to extrapolate to")
    parser.add_argument("--node-memory-gib", type=float, default=64)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    import ray

    from desktopd_fleet.local_cluster import LocalRayCluster

    # Ray resources are logical: enough CPUs that every actor of the largest pool gets one.
    per_node = -(-max(sizes) // 2)
    with LocalRayCluster(nodes=2, cpus_per_node=per_node, log_dir=f"/tmp/desktopd-bench-fleet-{os.getpid()}",
                         env={"PYTHONPATH": str(ROOT)}) as cluster:
        ray.init(address=cluster.address, _node_ip_address=cluster.head_ip, logging_level="WARNING")
        try:
            results = [run_pool(size, args.steps, args.episodes_per_desktop, args.image, cluster)
                       for size in sizes]
        finally:
            ray.shutdown()
    base = results[0]
    print(f"\n{'desktops':>8} {'first step s':>12} {'all first s':>11} {'steps':>6} {'steps/s':>8} "
          f"{'vs 1':>6} {'efficiency':>10} {'mem GiB':>8} {'peak GiB':>8} {'CPU s/step':>10}")
    for r in results:
        ratio = r.steps_per_s / base.steps_per_s
        print(f"{r.size:>8} {r.first_step_s:>12.1f} {r.all_first_steps_s:>11.1f} {r.steps:>6} "
              f"{r.steps_per_s:>8.2f} {ratio:>5.2f}x {ratio / (r.size / base.size):>10.2f} "
              f"{r.memory_mean:>8.2f} {r.memory_peak:>8.2f} {r.cpu_s_per_step:>10.3f}")
    extrapolate(results, args.node_cores, args.node_memory_gib)


if __name__ == "__main__":
    main()
