"""deploy/kubernetes rendered by the real kustomize (`kubectl kustomize`) and checked twice: every
object against the pinned Kubernetes version's OpenAPI schema (kubernetes-validate, strict: an
unknown field is an error), and against what the images and the daemons actually do (ports, image
names, settings, the security context, how the desktops are reached)."""

from __future__ import annotations

import base64
import re
import subprocess
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest

from testbed.capability import have_program, require

from .manifests import OVERLAYS, ROOT, Rendering, built_image_repositories, project_version, render, split_image

# The oldest minor version the manifests are meant for; its schema ships inside kubernetes-validate.
KUBERNETES_VERSION = "1.30.0"
EMPTY_DIRS = ("/tmp", "/run", "/home/desktop", "/dev/shm")   # /run holds /run/desktop
# Where the images' settings are read: a variable the manifests set must be read in one of these.
SETTINGS_SOURCES = [*(ROOT / "desktopd").rglob("*.py"), *(ROOT / "sidecar").rglob("*.py"),
                    *(ROOT / "httpapi").rglob("*.py"),
                    *(ROOT / "images").rglob("*")]


@pytest.fixture(scope="module", params=OVERLAYS)
def rendering(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Rendering:
    require(have_program("kubectl"), "kubectl (its built-in kustomize renders deploy/kubernetes)")
    return render(request.param, tmp_path_factory.mktemp(request.param))


def pod_spec(rendering: Rendering) -> dict:
    return rendering.one("StatefulSet")["spec"]["template"]["spec"]


def desktop_container(rendering: Rendering) -> dict:
    containers = pod_spec(rendering)["containers"]
    assert [c["name"] for c in containers] == ["desktop"]
    return containers[0]


def test_every_object_is_valid_for_the_pinned_kubernetes_version(rendering: Rendering) -> None:
    kinds = {doc["kind"] for doc in rendering.documents}
    assert {"Namespace", "Secret", "Service", "StatefulSet", "NetworkPolicy"} <= kinds
    for doc in rendering.documents:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except jsonschema.ValidationError as error:  # kubernetes-validate raises jsonschema's own
            pytest.fail(f"{rendering.overlay}: {doc['kind']}/{doc['metadata']['name']}: {error.message} "
                        f"at {'.'.join(map(str, error.path))}")


def test_every_object_lands_in_the_overlays_namespace(rendering: Rendering) -> None:
    namespace = rendering.one("Namespace")["metadata"]["name"]
    for doc in rendering.documents:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == namespace, doc["metadata"]


def test_the_image_is_the_chromium_image_build_images_builds(rendering: Rendering) -> None:
    repository, tag = split_image(desktop_container(rendering)["image"])
    assert repository == built_image_repositories()["chromium_image"] == "desktopd/chromium"
    # build-images.sh tags "latest" (IMAGE_TAG) and the project's version
    assert tag in ("latest", project_version())


def test_probes_use_health_on_ports_the_container_and_its_image_expose(rendering: Rendering) -> None:
    container = desktop_container(rendering)
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    # One Dockerfile builds both images (targets desktop and chromium)
    exposed = {int(port) for line in (ROOT / "images" / "desktop" / "Dockerfile").read_text().splitlines()
               if line.startswith("EXPOSE") for port in line.split()[1:]}
    probed = {}
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == "/health"        # public: kubelet sends no token
        port = ports[get["port"]] if isinstance(get["port"], str) else get["port"]
        assert port in exposed
        probed[probe] = port
    # desktopd (X alive) decides liveness; the sidecar (Chromium connected) readiness
    assert probed == {"startupProbe": 8080, "livenessProbe": 8080, "readinessProbe": 8122}


def test_every_environment_variable_is_one_the_images_read(rendering: Rendering) -> None:
    container = desktop_container(rendering)
    sources = "\n".join(path.read_text(errors="replace") for path in SETTINGS_SOURCES if path.is_file())
    values = " ".join(entry.get("value", "") for entry in container["env"])
    for entry in container["env"]:
        name = entry["name"]
        if "fieldRef" in entry.get("valueFrom", {}):
            assert f"$({name})" in values, f"{name} comes from the pod but nothing uses it"
            continue
        assert re.search(rf"\b{name}\b", sources), f"{name}: no setting of that name in the images"
    names = {entry["name"] for entry in container["env"]}
    assert not names & {"DESKTOPD_TOKEN", "SIDECAR_TOKEN", "DESKTOPD_INSECURE", "SIDECAR_INSECURE"}


def test_the_token_comes_from_the_generated_secret_mounted_as_a_file(rendering: Rendering) -> None:
    container, spec = desktop_container(rendering), pod_spec(rendering)
    token_file = next(e["value"] for e in container["env"] if e["name"] == "DESKTOPD_TOKEN_FILE")
    mount = next(m for m in container["volumeMounts"] if token_file.startswith(m["mountPath"] + "/"))
    volume = next(v for v in spec["volumes"] if v["name"] == mount["name"])
    secret = rendering.one("Secret")
    assert volume["secret"]["secretName"] == secret["metadata"]["name"]
    assert secret["metadata"]["name"].startswith("desktopd-token-")   # the generator's content hash
    key = Path(token_file).name
    assert base64.b64decode(secret["data"][key]).decode() == rendering.token
    # readable by the desktop user through fsGroup, by nobody else
    assert spec["securityContext"]["fsGroup"] == 1000 and volume["secret"]["defaultMode"] == 0o440
    tracked = [line for line in _git_ls_files() if line.startswith("deploy/") and line.endswith("token.txt")]
    assert tracked == []


def _git_ls_files() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                          timeout=30, check=True).stdout.splitlines()


def test_the_pod_runs_unprivileged_on_a_read_only_root(rendering: Rendering) -> None:
    spec, container = pod_spec(rendering), desktop_container(rendering)
    pod = spec["securityContext"]
    assert (pod["runAsUser"], pod["runAsGroup"], pod["runAsNonRoot"]) == (1000, 1000, True)
    assert pod["seccompProfile"]["type"] == "RuntimeDefault"
    context = container["securityContext"]
    assert context["allowPrivilegeEscalation"] is False
    assert context["readOnlyRootFilesystem"] is True
    assert context["capabilities"]["drop"] == ["ALL"] and "add" not in context["capabilities"]
    assert spec["automountServiceAccountToken"] is False
    # service links would set DESKTOPD_PORT=tcp://... for a Service named desktopd
    assert spec["enableServiceLinks"] is False
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounted = {m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"]}
    for path in EMPTY_DIRS:
        assert "emptyDir" in mounted[path], path
    assert mounted["/dev/shm"]["emptyDir"]["medium"] == "Memory"


def test_memory_is_requested_and_limited(rendering: Rendering) -> None:
    resources = desktop_container(rendering)["resources"]
    request, limit = (_bytes(resources[kind]["memory"]) for kind in ("requests", "limits"))
    assert 0 < request <= limit
    assert "cpu" in resources["requests"]


def _bytes(quantity: str) -> int:
    units = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "": 1}
    number, unit = re.fullmatch(r"(\d+)(Ki|Mi|Gi|)", quantity).groups()
    return int(number) * units[unit]


def test_desktops_are_reached_by_pod_dns_names_and_never_from_outside(rendering: Rendering) -> None:
    statefulset = rendering.one("StatefulSet")
    services = rendering.of_kind("Service")
    assert all(s["spec"].get("type", "ClusterIP") == "ClusterIP" for s in services)   # no LoadBalancer/NodePort
    headless = next(s for s in services if s["metadata"]["name"] == statefulset["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert headless["spec"]["selector"].items() <= labels.items()
    assert {p["port"] for p in headless["spec"]["ports"]} == {8080, 8122}
    # the Host names the guard accepts are the pods' names under that Service
    allowed = next(e["value"] for e in desktop_container(rendering)["env"] if e["name"] == "DESKTOPD_ALLOWED_HOSTS")
    assert f".{headless['metadata']['name']}.$(POD_NAMESPACE).svc" in allowed


def test_only_the_harness_namespace_reaches_the_apis(rendering: Rendering) -> None:
    policy = rendering.one("NetworkPolicy")["spec"]
    labels = rendering.one("StatefulSet")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    assert "Ingress" in policy["policyTypes"]
    [rule] = policy["ingress"]
    assert [set(source) for source in rule["from"]] == [{"namespaceSelector"}]
    assert rule["from"][0]["namespaceSelector"]["matchLabels"] == {"desktopd.io/harness": "allowed"}
    assert {p["port"] for p in rule["ports"]} == {8080, 8122}
