"""A real multi-node Ray cluster on one machine, for trying the runner and for its tests: a head
and worker nodes, each a `ray start --block` process pinned to its own loopback address (Ray
advertises the machine's external interface otherwise). That is the address nodes advertise and
connect to; Ray's GCS, raylets and workers still listen on every interface (`sockets()` shows
them). Each node is stopped by the PID of the process this started, which drains and ends that
node's own Ray processes.

    with LocalRayCluster(nodes=2, log_dir="/tmp/ray-logs") as cluster:
        ray.init(address=cluster.address, _node_ip_address=cluster.head_ip)
"""

from __future__ import annotations

import ipaddress
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


def _is_loopback(address: str) -> bool:
    parsed = ipaddress.ip_address(address)
    return (getattr(parsed, "ipv4_mapped", None) or parsed).is_loopback


@dataclass(frozen=True)
class TcpSocket:
    """One TCP socket of a cluster process, as /proc/net/tcp{,6} shows it."""
    local: str            # the address as bound: "127.0.0.2", "0.0.0.0", "::"
    port: int
    remote: str
    remote_port: int
    listening: bool
    pid: int
    command: str

    @property
    def loopback_only(self) -> bool:
        """Reachable (listening) or talking (connected) on loopback only; a wildcard bind is not."""
        return _is_loopback(self.local) and (self.listening or _is_loopback(self.remote))


def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    except OSError:  # the process ended, or is not ours to read
        pass
    return inodes


def _decode(hex_endpoint: str) -> tuple[str, int]:
    hex_address, hex_port = hex_endpoint.rsplit(":", 1)
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        address = str(ipaddress.IPv4Address(raw[::-1]))
    else:  # /proc/net/tcp6: four 32-bit words, each in host (little-endian) order
        address = str(ipaddress.IPv6Address(b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))))
    return address, int(hex_port, 16)


def tcp_sockets(pids: set[int]) -> list[TcpSocket]:
    """The listening and connected TCP sockets of ``pids``, from /proc (no ss/netstat needed)."""
    owner = {inode: pid for pid in pids for inode in _socket_inodes(pid)}
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            state, inode = fields[3], int(fields[9])
            if inode not in owner or state not in ("01", "0A"):     # ESTABLISHED, LISTEN
                continue
            (local, port), (remote, remote_port) = _decode(fields[1]), _decode(fields[2])
            pid = owner[inode]
            try:
                command = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                command = "?"
            found.append(TcpSocket(local, port, remote, remote_port, state == "0A", pid, command))
    return found


@dataclass
class LocalRayCluster:
    nodes: int = 2
    cpus_per_node: float = 2
    memory_per_node: int | None = None      # bytes Ray may hand out per node (None: Ray's guess)
    log_dir: str = "/tmp/desktopd-ray"
    start_timeout: float = 90.0
    head_ip: str = f"127.0.0.{FIRST_IP}"
    env: dict[str, str] = field(default_factory=dict)   # added to the nodes' (and so the workers') environment
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
        env = {**os.environ, **self.env, "RAY_USAGE_STATS_ENABLED": "0"}
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

    def process_ids(self) -> set[int]:
        """Every live process of the cluster: the `ray start` processes' sessions (raylets, GCS,
        workers and agents inherit the session each node was started in)."""
        sessions = {process.pid for process in self._processes if process.poll() is None}
        found = set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    # the field after the parenthesised command: state ppid pgrp session
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[3]) in sessions:
                    found.add(int(entry.name))
        return found

    def sockets(self) -> list[TcpSocket]:
        """The TCP sockets the cluster's processes listen on or talk over now."""
        return tcp_sockets(self.process_ids())

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
