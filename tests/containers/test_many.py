"""Four Chromium desktops side by side (scripts/run-many.sh): all healthy on distinct 127.0.0.1
ports; prints each one's memory, start-to-healthy seconds, and the image sizes."""

from __future__ import annotations

import os
import secrets
import subprocess

import docker
import pytest
import requests

from .support import ROOT

COUNT = 4


@pytest.fixture
def many(images: dict[str, str]):
    name = f"desktopd-test-many-{secrets.token_hex(3)}"
    env = {**os.environ, "RUN_MANY_NAME": name, "IMAGE": images["chromium"], "TIMEOUT": "300"}
    script = str(ROOT / "scripts" / "run-many.sh")
    try:
        yield script, env
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True, timeout=180)


def parse(line: str) -> tuple[str, dict[str, str]]:
    name, *pairs = line.split()
    return name, dict(pair.split("=", 1) for pair in pairs)


def test_four_desktops_side_by_side(many, images: dict[str, str], capsys) -> None:
    script, env = many
    result = subprocess.run([script, str(COUNT)], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"run-many failed:\n{result.stdout}\n{result.stderr}"
    desktops = dict(parse(line) for line in result.stdout.splitlines() if line.strip())
    assert len(desktops) == COUNT, result.stdout
    ports = [url.rsplit(":", 1)[1].split("/")[0] for d in desktops.values() for url in (d["desktopd"], d["sidecar"], d["novnc"], d["vnc"])]
    assert len(set(ports)) == 4 * COUNT, f"host ports collide: {ports}"

    for name, urls in desktops.items():
        assert urls["desktopd"].startswith("http://127.0.0.1:"), urls
        health = requests.get(urls["sidecar"] + "/health", timeout=10)
        assert health.status_code == 200 and health.json()["status"] == "ok", (name, health.text)
        # Each desktop is its own X server: a window tree answers, from that container.
        tree = requests.get(urls["desktopd"] + "/api/v1/tree", timeout=10)
        assert tree.status_code == 200, (name, tree.text)

    client = docker.from_env()
    stats = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}",
                            *desktops], capture_output=True, text=True, timeout=120)
    assert stats.returncode == 0, stats.stderr
    memory = dict(line.split("\t", 1) for line in stats.stdout.splitlines())
    base = subprocess.run(["sed", "-n", "s/^ARG BASE_IMAGE=//p", str(ROOT / "images/desktop/Dockerfile")],
                          capture_output=True, text=True).stdout.strip()
    # The figures go to the terminal even when the test passes: CI's log is where they are read.
    with capsys.disabled():
        print(f"\n{COUNT} chromium desktops side by side (start-to-healthy measured by run-many.sh: "
              f"the image's probe through the published ports every 0.5 s):")
        for name, urls in desktops.items():
            print(f"  {name}: healthy after {urls['healthy_after_s']} s, memory/cpu {memory.get(name, '?')}")
        for image in (base, *images.values()):
            print(f"  image {image}: {client.images.get(image).attrs['Size'] / 1e6:.0f} MB")
