"""The Kubernetes manifests as a cluster would get them: each overlay of deploy/kubernetes rendered
by `kubectl kustomize` (the real kustomize, not a re-implementation), in a copy of the tree that
holds the token file the user would create."""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
OVERLAYS = ("dev", "pool")
KUSTOMIZE_TIMEOUT = 60


@dataclass(frozen=True)
class Rendering:
    overlay: str
    token: str
    documents: tuple[dict, ...]

    def of_kind(self, kind: str) -> list[dict]:
        return [doc for doc in self.documents if doc["kind"] == kind]

    def one(self, kind: str) -> dict:
        found = self.of_kind(kind)
        assert len(found) == 1, f"{self.overlay}: {len(found)} {kind} objects"
        return found[0]


def render(overlay: str, workdir: Path) -> Rendering:
    """kubectl kustomize of ``overlay`` in a copy of deploy/kubernetes with a fresh token.txt."""
    copy = workdir / "kubernetes"
    shutil.copytree(DEPLOY, copy)
    token = secrets.token_urlsafe(24)
    (copy / "overlays" / overlay / "token.txt").write_text(token)
    result = subprocess.run(["kubectl", "kustomize", str(copy / "overlays" / overlay)],
                            capture_output=True, text=True, timeout=KUSTOMIZE_TIMEOUT)
    assert result.returncode == 0, f"kubectl kustomize {overlay} failed:\n{result.stderr}"
    documents = tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)
    return Rendering(overlay, token, documents)


def built_image_repositories() -> dict[str, str]:
    """What scripts/build-images.sh names its images with its default IMAGE_PREFIX, by variable:
    {"chromium_image": "desktopd/chromium", ...}, read from the script itself."""
    script = (ROOT / "scripts" / "build-images.sh").read_text()
    prefix = re.search(r"^prefix=\$\{IMAGE_PREFIX:-([^}]+)\}", script, re.M)
    assert prefix, "build-images.sh no longer defaults IMAGE_PREFIX"
    images = {}
    for name, template in re.findall(r"^(\w+_image)=\$prefix/([\w.-]+):\$tag$", script, re.M):
        images[name] = f"{prefix.group(1)}/{template}"
    return images


def project_version() -> str:
    match = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert match
    return match.group(1)


def split_image(reference: str) -> tuple[str, str]:
    """("repo/name", "tag") of an image reference without a digest."""
    name, _, tag = reference.rpartition(":")
    if "/" in tag or not name:
        return reference, "latest"
    return name, tag
