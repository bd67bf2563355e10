"""A real multi-node Ray cluster on one machine, for trying the runner and for its tests: a head
and worker nodes, each a `ray start --block` process pinned to its own loopback address (Ray
advertises the machine's external interface otherwise). Each node is stopped by the PID of the
process this started, which drains and ends that node's own Ray processes.

    with LocalRayCluster(nodes=2, log_dir="/tmp/ray-logs") as cluster:
        ray.init(address=cluster.address, _node_ip_address=cluster.head_ip)
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

FIRST_IP = 2  # 127.0.0.2: 127.0.0.1 stays free for the services under test


class ClusterError(RuntimeError):
    """A node did not start or join in time; the message carries its log's tail."""


def _free_port(ip: str) -> int:
    with socket.socket() as sock:
        sock.bind((ip, 0))
        return sock.getsockname()[1]


def _ray_command() -> str:
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.exists() else (shutil.which("ray") or "ray")


@dataclass
class LocalRayCluster:
    nodes: int = 2
    cpus_per_node: float = 2
    memory_per_node: int | None = None      # bytes Ray may hand out per node (None: Ray's guess)
    log_dir: str = "/tmp/desktopd-ray"
    start_timeout: float = 90.0
    head_ip: str = f"127.0.0.{FIRST_IP}"
    address: str = ""
    _processes: list[subprocess.Popen] = field(default_factory=list)

    def __enter__(self) -> LocalRayCluster:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def node_ips(self) -> list[str]:
        return [f"127.0.0.{FIRST_IP + i}" for i in range(self.nodes)]

    def start(self) -> None:
        Path(self.log_dir).mkdir(parents=True, exist_ok=True)
        port = _free_port(self.head_ip)
        self.address = f"{self.head_ip}:{port}"
        try:
            for index, ip in enumerate(self.node_ips()):
                role = ["--head", "--port", str(port), "--include-dashboard", "false"] if index == 0 \
                    else ["--address", self.address]
                self._start_node(ip, role, f"node-{index}")
                self._wait_for_nodes(index + 1)
        except BaseException:
            self.stop()
            raise

    def _start_node(self, ip: str, role: list[str], name: str) -> None:
        argv = [_ray_command(), "start", "--block", *role, "--node-ip-address", ip,
                "--num-cpus", str(self.cpus_per_node), "--disable-usage-stats"]
        if self.memory_per_node is not None:
            argv += ["--memory", str(self.memory_per_node)]
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        with open(Path(self.log_dir) / f"{name}.log", "ab") as log:
            self._processes.append(subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                                    env=env, start_new_session=True))

    def _wait_for_nodes(self, count: int) -> None:
        """Until `ray status`-like GCS view lists ``count`` live nodes."""
        deadline = time.monotonic() + self.start_timeout
        probe = ("import ray,sys; ray.init(address=sys.argv[1], _node_ip_address=sys.argv[2], "
                 "logging_level='ERROR'); print(sum(1 for n in ray.nodes() if n['Alive']))")
        while time.monotonic() < deadline:
            for process in self._processes:
                if process.poll() is not None:
                    raise ClusterError(f"a Ray node exited with {process.returncode}:\n{self._log_tail()}")
            result = subprocess.run([sys.executable, "-c", probe, self.address, self.head_ip],
                                    capture_output=True, text=True, timeout=60,
                                    env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
            if result.returncode == 0 and result.stdout.strip().splitlines()[-1:] == [str(count)]:
                return
            time.sleep(1.0)
        raise ClusterError(f"{count} Ray node(s) not up within {self.start_timeout:.0f}s:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        tails = []
        for path in sorted(Path(self.log_dir).glob("node-*.log")):
            tails.append(f"--- {path.name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-20:]))
        return "\n".join(tails)

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM to each node's `ray start --block` (workers first), then SIGKILL to its
        session if it did not end in time."""
        for process in reversed(self._processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in reversed(self._processes):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self._processes.clear()
