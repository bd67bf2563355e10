#!/usr/bin/env python3
"""Benchmark a fleet: RolloutRunner on a local two-node Ray cluster (127.0.0.2, 127.0.0.3), each
actor driving its own Chromium desktop container through the harness kit's DesktopEnv, for pools
of 1, 2 and 4 desktops. Per pool size (RolloutRunner.start(), a warm-up batch, a measured batch, close()):
  * start to first step: start() -> every desktop healthy (containers, both /health ok), then the
    first and the last desktop's first step done (env made, reset, one step);
  * steps/s of the measured batch, summed over the desktops: while stepping (steps / time in
    env.step) and over the batch's wall time (each episode starts with a reset: DesktopEnv
    restarts Chromium on a fresh profile);
  * memory per desktop: `docker stats` of the pool's containers, sampled while they step;
  * CPU per step: the containers' CPU time plus the Ray processes' (GCS, raylets, the actors
    and their env clients) and this driver's over the measured batch, divided by its steps; and
    the whole machine's busy cores (/proc/stat), to show what else competed for the CPU.
The 1-desktop pool is the baseline: the other pools print their wall rate against it and their
scaling efficiency (rate / (n x baseline)). Then an extrapolation to a bigger node and to 100
desktops from these figures, with its assumptions.

A step: the policy clicks (our own action format), desktopd settles and DesktopEnv observes (a
screenshot scaled to 640x400). --settle fixed makes every settle a 100 ms pause (settle_s =
settle_quiet_s = 0.1), the kit's fixed sleep before settling on X damage, for a same-run
comparison with the default, --settle evidence. Needs the images (scripts/build-images.sh) and the fleet and kit
extras. Usage: .venv/bin/python benchmarks/bench_fleet.py [--sizes 1,2,4] [--steps 30] [--image ...]
"""

from __future__ import annotations

import argparse
import functools
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


# How DesktopEnv settles after each action: on evidence (the kit's defaults: X damage and the
# browser's word), or a fixed 100 ms pause (a quiet window as long as the maximum, without the
# browser's word, ends every wait at 100 ms: the old client sleep).
SETTLE = {"evidence": {}, "damage": {"settle_browser": False},
          "fixed": {"settle_s": 0.1, "settle_quiet_s": 0.1, "settle_browser": False}}


def make_env(lease, settle: str = "evidence"):
    from desktopd_kit.env import DesktopEnv

    endpoint = lease.endpoint
    return DesktopEnv(endpoint.desktopd_url, sidecar_url=endpoint.sidecar_url, token=endpoint.token,
                      screenshot_size=OBSERVATION_SIZE, **SETTLE[settle])


def press_the_middle(observation) -> dict:
    height, width = observation["screenshot"].shape[:2]
    return {"type": "click", "x": width // 2, "y": height // 2}


def process_cpu_seconds(pids: set[int]) -> float:
    """The processes' CPU time so far, this driver's own included (its docker stats calls)."""
    pids = pids | {os.getpid()}
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])   # utime, stime
    return total / CLOCK_TICKS


def machine_cpu_seconds() -> float:
    """CPU time every process of the machine used so far (/proc/stat: all but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


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
    desktops_up_s: float          # start() -> every desktop healthy
    first_step_s: float           # start() -> the first desktop's first step done
    all_first_steps_s: float      # start() -> every desktop's first step done
    steps: int
    stepping_rate: float          # sum over desktops of steps / time in env.step
    wall_rate: float              # steps / the batch's wall time (resets included)
    reset_s: float                # mean DesktopEnv.reset (Chromium restarted on a fresh profile)
    memory_mean: float
    memory_peak: float
    cpu_s_per_step: float         # containers + Ray processes + this driver over the batch, per step
    machine_cores: float          # the whole machine's busy cores during the batch
    machine_cpu_s_per_step: float  # ... per step: dockerd and anything else running included


def run_pool(size: int, steps: int, episodes_per_desktop: int, image: str, cluster,
             settle: str = "evidence") -> PoolResult:
    import docker

    from desktopd_fleet.episodes import EpisodeSpec
    from desktopd_fleet.provision import DockerDesktops
    from desktopd_fleet.ray_runner import RolloutRunner

    client = docker.from_env()
    prefix = f"desktopd-bench-{os.getpid()}-{size}"
    source = DockerDesktops(image=image, name_prefix=prefix, env={"WIDTH": "1280", "HEIGHT": "800"})
    runner = RolloutRunner(source, functools.partial(make_env, settle=settle), press_the_middle,
                           workers=size, num_cpus=1,
                           memory_per_desktop=1 * GIB)
    warmups = [EpisodeSpec(f"warmup-{i}", urls=(PAGE,), max_steps=1) for i in range(size)]
    measured = [EpisodeSpec(f"episode-{i}", urls=(PAGE,), max_steps=steps)
                for i in range(size * episodes_per_desktop)]
    started = time.monotonic()
    try:
        runner.start()
        desktops_up = time.monotonic() - started
        arrivals = [time.monotonic() - started for _ in runner.run(warmups)]
        peak: dict[str, int] = {}
        step_time: dict[str, float] = {}
        step_count: dict[str, int] = {}
        resets: list[float] = []
        before, host_before, machine_before, window_start = sample_pool(client, prefix), \
            process_cpu_seconds(cluster.process_ids()), machine_cpu_seconds(), time.monotonic()
        last_sample = window_start
        for result in runner.run(measured):
            step_time[result.desktop] = step_time.get(result.desktop, 0.0) + sum(result.step_s)
            step_count[result.desktop] = step_count.get(result.desktop, 0) + result.steps
            resets.append(result.reset_s)
            if time.monotonic() - last_sample > 2.0:
                for name, memory in sample_pool(client, prefix).memory.items():
                    peak[name] = max(peak.get(name, 0), memory)
                last_sample = time.monotonic()
        window = time.monotonic() - window_start
        machine = machine_cpu_seconds() - machine_before
        after, host_after = sample_pool(client, prefix), process_cpu_seconds(cluster.process_ids())
    finally:
        runner.close()
    for name, memory in after.memory.items():
        peak[name] = max(peak.get(name, 0), memory)
    total_steps = sum(step_count.values())
    container_cpu = sum(after.cpu_ns[name] - before.cpu_ns[name] for name in after.cpu_ns if name in before.cpu_ns) / 1e9
    return PoolResult(size, desktops_up, arrivals[0], arrivals[-1], total_steps,
                      sum(step_count[d] / step_time[d] for d in step_time if step_time[d] > 0),
                      total_steps / window, sum(resets) / len(resets),
                      sum(peak.values()) / len(peak) / GIB, max(peak.values()) / GIB,
                      (container_cpu + host_after - host_before) / total_steps,
                      machine / window, machine / total_steps)


def extrapolate(results: list[PoolResult], steps: int, node_cores: int, node_memory_gib: float) -> None:
    base, largest = results[0], results[-1]
    memory = max(r.memory_peak for r in results) * 1.25      # the peak seen plus a quarter headroom
    cpu_per_step = max(r.cpu_s_per_step for r in results)     # the most any pool needed (ours only)
    rate_alone = base.wall_rate                                # one desktop with the CPU to itself
    cores_per_desktop = rate_alone * cpu_per_step
    by_memory = int(node_memory_gib * 0.9 // memory)           # 10% of the node for the system
    by_cpu = max(1, int(node_cores // cores_per_desktop))
    per_node = min(by_memory, by_cpu)
    node_rate = min(per_node * rate_alone, node_cores / cpu_per_step)
    here = min(largest.size * rate_alone, 2 / cpu_per_step)
    print(f"\nextrapolation; assumptions: a step is a click and a {OBSERVATION_SIZE[0]}x{OBSERVATION_SIZE[1]} "
          f"observation, episodes of {steps} steps each starting with a reset (resets amortised in "
          f"both rate and CPU); steps are CPU-bound, a desktop steps at most at its rate alone "
          f"({rate_alone:.2f}/s wall), CPU per step is the most any pool used ({cpu_per_step:.3f} s: "
          f"containers, Ray, env clients, the driver; dockerd's share is not counted); memory per "
          f"desktop is the peak seen x 1.25 ({memory:.2f} GiB); 10% of a node's memory is kept for the "
          f"system; other load on the machine (see 'machine cores') slows the measured rates.")
    print(f"{'':34} {'desktops':>8} {'memory GiB':>11} {'CPU cores':>10} {'steps/s':>9}")
    print(f"{'one desktop, busy':34} {1:>8} {memory:>11.2f} {cores_per_desktop:>10.2f} {rate_alone:>9.2f}")
    print(f"{'this machine (2 cores), model':34} {largest.size:>8} {largest.size * memory:>11.1f} "
          f"{min(2.0, largest.size * cores_per_desktop):>10.1f} {here:>9.2f}   measured: {largest.wall_rate:.2f}")
    print(f"{f'a node of {node_cores} cores, {node_memory_gib:.0f} GiB':34} {per_node:>8} "
          f"{per_node * memory:>11.1f} {min(node_cores, per_node * cores_per_desktop):>10.1f} {node_rate:>9.1f}")
    print(f"{'100 desktops, all busy':34} {100:>8} {100 * memory:>11.1f} {100 * cores_per_desktop:>10.1f} "
          f"{100 * rate_alone:>9.1f}   ({-(-100 // per_node)} such nodes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4", help="pool sizes, the first is the baseline")
    parser.add_argument("--steps", type=int, default=30, help="steps per measured episode")
    parser.add_argument("--episodes-per-desktop", type=int, default=2)
    parser.add_argument("--image", default="desktopd/chromium:latest")
    parser.add_argument("--node-cores", type=int, default=16, help="the node to extrapolate to")
    parser.add_argument("--node-memory-gib", type=float, default=64)
    parser.add_argument("--settle", default="evidence", choices=sorted(SETTLE),
                        help="evidence: desktopd settles on X damage and the browser's word; damage: on X "
                             "damage alone; fixed: a 100 ms pause per step")
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
            results = [run_pool(size, args.steps, args.episodes_per_desktop, args.image, cluster, args.settle)
                       for size in sizes]
        finally:
            ray.shutdown()
    base = results[0]
    print(f"\n{'desktops':>8} {'up s':>5} {'1st step s':>10} {'all 1st s':>9} {'steps':>6} {'stepping/s':>10} "
          f"{'wall/s':>7} {'vs 1':>6} {'effic.':>6} {'reset s':>7} {'mem GiB':>7} {'peak':>5} {'CPU s/step':>10} "
          f"{'machine cores':>13} {'machine s/step':>14}")
    for r in results:
        ratio = r.wall_rate / base.wall_rate
        print(f"{r.size:>8} {r.desktops_up_s:>5.1f} {r.first_step_s:>10.1f} {r.all_first_steps_s:>9.1f} "
              f"{r.steps:>6} {r.stepping_rate:>10.2f} {r.wall_rate:>7.2f} {ratio:>5.2f}x "
              f"{ratio / (r.size / base.size):>6.2f} {r.reset_s:>7.2f} {r.memory_mean:>7.2f} "
              f"{r.memory_peak:>5.2f} {r.cpu_s_per_step:>10.3f} {r.machine_cores:>13.2f} "
              f"{r.machine_cpu_s_per_step:>14.3f}")
    extrapolate(results, args.steps, args.node_cores, args.node_memory_gib)

if __name__ == "__main__":
    main()
