"""The dev overlay's pod, run on Docker the way a kubelet would run it: its securityContext (user,
read-only root, no capabilities, no privilege escalation), its volumes as a kubelet makes them
(emptyDirs are root-owned, mode 2777, group fsGroup; the Secret's files root-owned with
defaultMode, group fsGroup), its environment with $(VAR) references expanded, and its probes
polled as the kubelet polls them. Everything is read from the rendered manifests, so a change
there that breaks the desktop breaks this test."""

from __future__ import annotations

import base64
import os
import re
import time
from pathlib import Path

import docker
import pytest
import requests

from testbed.capability import docker_available, have_program, require
from tests.containers.support import CHROMIUM_IMAGE, build_images, logs_of

from .manifests import render, split_image

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]
LABEL = "desktopd.tests"
POD_NAME = "desktop-0"


def expand(value: str, known: dict[str, str]) -> str:
    """Kubernetes' $(VAR) expansion of env values (earlier variables only)."""
    return re.sub(r"\$\((\w+)\)", lambda m: known.get(m.group(1), m.group(0)), value)


def pod_environment(container: dict, namespace: str) -> dict[str, str]:
    fields = {"metadata.namespace": namespace, "metadata.name": POD_NAME}
    env: dict[str, str] = {}
    for entry in container["env"]:
        if "value" in entry:
            env[entry["name"]] = expand(entry["value"], env)
        else:
            env[entry["name"]] = fields[entry["valueFrom"]["fieldRef"]["fieldPath"]]
    return env


def kubelet_volumes(spec: dict, container: dict, secrets: dict[str, dict], root: Path) -> dict[str, dict]:
    """Host directories laid out as a kubelet lays out the pod's volumes, as docker-py binds."""
    group = spec["securityContext"]["fsGroup"]
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    binds = {}
    for mount in container["volumeMounts"]:
        volume = volumes[mount["name"]]
        path = root / mount["name"]
        path.mkdir()
        os.chown(path, 0, group)
        if "emptyDir" in volume:
            path.chmod(0o2777)
        else:
            path.chmod(0o2755)
            data = secrets[volume["secret"]["secretName"]]["data"]
            for key, encoded in data.items():
                (path / key).write_bytes(base64.b64decode(encoded))
                os.chown(path / key, 0, group)
                (path / key).chmod(volume["secret"]["defaultMode"])
        binds[str(path)] = {"bind": mount["mountPath"], "mode": "ro" if mount.get("readOnly") else "rw"}
    return binds


def wait_for_probes(container_obj, container: dict, ports: dict[int, int], deadline: float) -> None:
    """Until the startup and readiness probes both answer 200 (the kubelet's success), bounded."""
    named = {port["name"]: port["containerPort"] for port in container["ports"]}
    urls = []
    for probe in ("startupProbe", "readinessProbe"):
        get = container[probe]["httpGet"]
        port = named.get(get["port"], get["port"])
        urls.append(f"http://127.0.0.1:{ports[port]}{get['path']}")
    while time.monotonic() < deadline:
        container_obj.reload()
        if container_obj.status != "running":
            pytest.fail(f"the pod's container stopped:\n{logs_of(container_obj)}")
        try:
            if all(requests.get(url, timeout=3).status_code == 200 for url in urls):
                return
        except requests.RequestException:
            pass
        time.sleep(1)
    pytest.fail(f"probes {urls} not passing in time:\n{logs_of(container_obj)}")


def test_the_dev_pod_runs_as_its_manifest_says(tmp_path: Path) -> None:
    require(have_program("kubectl"), "kubectl (its built-in kustomize renders deploy/kubernetes)")
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    require(os.geteuid() == 0, "root (to give the volumes a kubelet's ownership)")
    build_images()
    rendering = render("dev", tmp_path)
    namespace = rendering.one("Namespace")["metadata"]["name"]
    spec = rendering.one("StatefulSet")["spec"]["template"]["spec"]
    [container] = spec["containers"]
    assert split_image(container["image"])[0] == split_image(CHROMIUM_IMAGE)[0]
    secrets = {secret["metadata"]["name"]: secret for secret in rendering.of_kind("Secret")}
    volume_root = tmp_path / "volumes"
    volume_root.mkdir()
    pod, context = spec["securityContext"], container["securityContext"]
    client = docker.from_env()
    started = client.containers.run(
        CHROMIUM_IMAGE, detach=True, labels={LABEL: "1"},
        user=f"{pod['runAsUser']}:{pod['runAsGroup']}", group_add=[str(pod["fsGroup"])],
        read_only=context["readOnlyRootFilesystem"], cap_drop=context["capabilities"]["drop"],
        security_opt=["no-new-privileges:true"] if context["allowPrivilegeEscalation"] is False else [],
        volumes=kubelet_volumes(spec, container, secrets, volume_root),
        environment=pod_environment(container, namespace),
        ports={f"{port}/tcp": ("127.0.0.1", None) for port in (8080, 8122)})
    try:
        started.reload()
        ports = {port: int(started.ports[f"{port}/tcp"][0]["HostPort"]) for port in (8080, 8122)}
        wait_for_probes(started, container, ports, time.monotonic() + 240)
        pod_host = f"{POD_NAME}.{spec_service(rendering)}.{namespace}.svc.cluster.local"
        desktopd, sidecar = (f"http://127.0.0.1:{ports[port]}" for port in (8080, 8122))
        auth = {"Authorization": f"Bearer {rendering.token}", "Host": pod_host}

        assert requests.get(f"{desktopd}/api/v1/tree", timeout=10).status_code == 401
        assert requests.get(f"{desktopd}/api/v1/tree", headers=auth, timeout=10).status_code == 200
        assert requests.get(f"{sidecar}/tabs", headers=auth, timeout=10).status_code == 200
        foreign = {**auth, "Host": "desktop-0.elsewhere.example"}
        assert requests.get(f"{desktopd}/api/v1/tree", headers=foreign, timeout=10).status_code == 421

        answer = requests.post(f"{desktopd}/api/v1/execute", headers=auth, timeout=30, json={
            "command": "id -u; grep CapEff /proc/self/status; touch /etc/probe; touch /tmp/probe && echo tmp-ok"})
        assert answer.status_code == 200, answer.text
        out = answer.json()
        assert out["stdout"].splitlines()[0] == "1000"
        assert "CapEff:\t0000000000000000" in out["stdout"] and "tmp-ok" in out["stdout"]
        assert "Read-only file system" in out["stderr"]
        # an episode's reset restarts Chromium on a fresh profile (under /tmp): it works read-only
        page = "data:text/html,<title>pod reset</title>"
        reset = requests.post(f"{desktopd}/api/v1/reset", headers=auth, timeout=120, json={"urls": [page]})
        assert reset.status_code == 200, reset.text
        tabs = requests.get(f"{sidecar}/tabs", headers=auth, timeout=10).json()
        assert [tab["title"] for tab in tabs] == ["pod reset"]
    finally:
        started.remove(force=True, v=True)


def spec_service(rendering) -> str:
    return rendering.one("StatefulSet")["spec"]["serviceName"]
