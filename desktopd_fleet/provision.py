"""Where a rollout's desktops come from: a container started on this node's Docker engine, or a
desktop that already runs somewhere (a Kubernetes pod) and is only attached to.

A lease owns one desktop for as long as a worker uses it; `release()` ends what the lease
started and nothing else. Nothing here opens a connection at import."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import requests

DEFAULT_IMAGE = "desktopd/chromium:latest"
HEALTH_TIMEOUT = 240.0
LABEL = "desktopd.fleet"
LOG_TAIL_LINES = 40        # of a desktop that died while starting, in the error that says so


class DesktopLost(RuntimeError):
    """The desktop stopped answering (its container died, its pod went away): the episode that
    ran on it is retried on a new one."""


@dataclass(frozen=True)
class Endpoint:
    """How a client reaches one desktop."""
    desktopd_url: str
    sidecar_url: str | None = None
    token: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


class Lease(Protocol):
    """One desktop, held by one worker."""
    endpoint: Endpoint
    name: str

    def alive(self) -> bool: ...

    def release(self) -> None: ...


def healthy(endpoint: Endpoint, timeout: float = 5.0) -> bool:
    """Both services' /health answer ok (the sidecar's only when the desktop has one)."""
    urls = [endpoint.desktopd_url + "/health"]
    if endpoint.sidecar_url:
        urls.append(endpoint.sidecar_url + "/health")
    try:
        return all(requests.get(url, timeout=timeout).status_code == 200 for url in urls)
    except requests.RequestException:
        return False


def wait_healthy(endpoint: Endpoint, timeout: float, still_running=lambda: True) -> None:
    """Poll both /health endpoints until they answer ok, the desktop dies, or the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if healthy(endpoint, timeout=2.0):
            return
        if not still_running():
            raise DesktopLost(f"{endpoint.desktopd_url} stopped before it was healthy")
        time.sleep(0.5)
    raise DesktopLost(f"{endpoint.desktopd_url} not healthy within {timeout:.0f}s")


@dataclass
class AttachedLease:
    """A desktop someone else runs (a Kubernetes pod's Service URL): attached, never stopped."""
    endpoint: Endpoint
    name: str = "attached"

    def alive(self) -> bool:
        return healthy(self.endpoint)

    def release(self) -> None:
        return None


@dataclass
class AttachedDesktops:
    """Desktops that already run (a StatefulSet's pods). Worker i starts at endpoint i and, when
    its desktop is dead, moves on to the next healthy one."""
    endpoints: list[Endpoint]
    _next: int = 0

    def for_worker(self, index: int) -> AttachedDesktops:
        return AttachedDesktops(list(self.endpoints), index)

    def start(self) -> AttachedLease:
        for _ in range(len(self.endpoints)):
            endpoint = self.endpoints[self._next % len(self.endpoints)]
            self._next += 1
            if healthy(endpoint):
                return AttachedLease(endpoint, name=endpoint.desktopd_url)
        raise DesktopLost("none of the attached desktops is healthy")

    def cleanup(self) -> None:
        return None


@dataclass(frozen=True)
class DockerDesktops:
    """Starts Chromium desktops on the local Docker engine, ports published on 127.0.0.1 only,
    each with its own random token.

    memory_limit: the container's hard limit (Docker syntax, "2g"); None leaves it unlimited.
    """
    image: str = DEFAULT_IMAGE
    env: Mapping[str, str] = field(default_factory=dict)
    memory_limit: str | None = None
    shm_size: str = "1g"
    health_timeout: float = HEALTH_TIMEOUT
    # Docker's own probe of the image (every 3 s there) costs an idle desktop ~0.5 % of a core
    # (docker exec alone is ~11 ms of CPU); start() polls /health itself, so it runs rarely here.
    health_interval_s: float = 30.0
    name_prefix: str = "desktopd-fleet"
    # More container ports to publish on 127.0.0.1 (e.g. OSWorld's 5000 and 9222); the lease's
    # ports map every published one to its host port.
    extra_ports: tuple[int, ...] = ()

    def for_worker(self, index: int) -> DockerDesktops:
        return self

    def start(self) -> DockerLease:
        import docker  # the engine's client; only a node that starts containers needs it

        client = docker.from_env()
        token = secrets.token_urlsafe(24)
        name = f"{self.name_prefix}-{secrets.token_hex(4)}"
        environment = {"VNC_PASSWORD": secrets.token_hex(4), **self.env, "DESKTOPD_TOKEN": token}
        container = client.containers.run(
            self.image, name=name, detach=True, environment=environment, shm_size=self.shm_size,
            mem_limit=self.memory_limit, labels={LABEL: self.name_prefix},
            security_opt=["no-new-privileges:true"],
            healthcheck={"interval": int(self.health_interval_s * 1e9)},   # the image's test, less often
            ports={f"{port}/tcp": ("127.0.0.1", None) for port in (8080, 8122, *self.extra_ports)})
        lease = DockerLease(container=container, name=name, endpoint=Endpoint("", None, token))
        try:
            container.reload()
            ports = {port: int(container.ports[f"{port}/tcp"][0]["HostPort"])
                     for port in (8080, 8122, *self.extra_ports)}
            lease.ports = ports
            lease.endpoint = Endpoint(f"http://127.0.0.1:{ports[8080]}", f"http://127.0.0.1:{ports[8122]}",
                                      token)
            try:
                wait_healthy(lease.endpoint, self.health_timeout, lease.running)
            except DesktopLost as error:
                # Say why, before the container (and its log) goes: the desktop's watchdog logs
                # which program failed.
                raise DesktopLost(f"{name}: {error}; its log ends:\n{lease.log_tail()}") from None
        except BaseException:
            lease.release()
            raise
        return lease

    def cleanup(self) -> None:
        """Removes every container this source's name prefix labelled on the local engine:
        those whose actor died before it could release them."""
        import docker

        client = docker.from_env()
        for container in client.containers.list(all=True, filters={"label": f"{LABEL}={self.name_prefix}"}):
            try:
                container.remove(force=True, v=True)
            except docker.errors.NotFound:
                pass


def container_memory_bytes(stats: Mapping) -> int | None:
    """Memory use from a Docker stats answer, as `docker stats` shows it: the cgroup's usage less
    its inactive page cache (cgroup v2: inactive_file; v1: total_inactive_file)."""
    memory = stats.get("memory_stats") or {}
    usage = memory.get("usage")
    if usage is None:
        return None
    detail = memory.get("stats") or {}
    cache = detail.get("inactive_file", detail.get("total_inactive_file", 0))
    return int(usage - cache)


@dataclass
class DockerLease:
    """A container this process started; `release()` removes it (and only it)."""
    container: object  # docker.models.containers.Container: typed loosely so docker stays optional
    name: str
    endpoint: Endpoint
    ports: dict[int, int] = field(default_factory=dict)   # container port -> host port (127.0.0.1)

    def running(self) -> bool:
        import docker

        try:
            self.container.reload()
        except docker.errors.NotFound:
            return False
        return self.container.status == "running"

    def alive(self) -> bool:
        return self.running() and healthy(self.endpoint)

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The container's last log lines (empty when it is gone)."""
        try:
            return self.container.logs(tail=lines).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - a container that is gone has no log
            return ""

    def memory_bytes(self) -> int | None:
        """The container's memory now as `docker stats` counts it, or None."""
        try:
            stats = self.container.stats(stream=False, one_shot=True)
        except Exception:  # noqa: BLE001 - a container that is gone has no figure
            return None
        return container_memory_bytes(stats)

    def release(self) -> None:
        import docker

        try:
            self.container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
