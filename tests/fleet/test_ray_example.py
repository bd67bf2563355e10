"""docs/ray.md's rollout example, run as the document shows it (only its settings lines are
replaced: this run's image, a temporary records directory, a local page and a small fleet) as a
driver script against a real local Ray cluster with real Chromium desktop containers: every
episode's record is where the document says, with its video, and validates."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from desktopd_fleet.local_cluster import LocalRayCluster
from desktopd_kit.records import EpisodeReader
from testbed.capability import docker_available, have_program, require
from tests.containers.support import CHROMIUM_IMAGE, build_images
from tests.fleet.support import fleet_containers

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ray.md"
DEFAULT_PREFIX = "desktopd-fleet"     # the example's DockerDesktops() names its containers so
PAGE = "data:text/html," + quote("<title>example</title><button style='position:fixed;inset:0'>press</button>")
EPISODES, STEPS = 3, 3


def documented_example() -> str:
    """The first python code block under docs/ray.md's "## Example"."""
    text = DOC.read_text()
    section = text[text.index("## Example"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def with_settings(code: str, settings: dict[str, str]) -> str:
    """The code with each settings line (matched whole, exactly once) replaced."""
    for line, replacement in settings.items():
        assert code.count(line + "\n") == 1, f"docs/ray.md's example has no single line {line!r}"
        code = code.replace(line + "\n", replacement + "\n")
    return code


def test_the_documented_rollout_example_records_every_episode(tmp_path: Path) -> None:
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    require(have_program("ffprobe"), "ffprobe (Debian package ffmpeg)")
    build_images()
    assert fleet_containers(DEFAULT_PREFIX) == [], "another run's example desktops are still there"
    records = tmp_path / "episodes"
    script = tmp_path / "example.py"
    script.write_text(with_settings(documented_example(), {
        'IMAGE = "desktopd/chromium:latest"': f"IMAGE = {CHROMIUM_IMAGE!r}",
        'RECORDS = "/data/episodes"                            # on every node (see below)':
            f"RECORDS = {str(records)!r}",
        'START_URLS = ("https://example.org/",)': f"START_URLS = ({PAGE!r},)",
        "WORKERS, BATCHES, EPISODES, STEPS = 8, 10, 100, 30": f"WORKERS, BATCHES, EPISODES, STEPS = 2, 1, {EPISODES}, {STEPS}",
    }))
    cluster = LocalRayCluster(nodes=1, cpus_per_node=2, log_dir=str(tmp_path / "ray"), env={"PYTHONPATH": str(ROOT)})
    cluster.start()
    try:
        run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=1200,
                             env={**os.environ, "RAY_ADDRESS": cluster.address, "PYTHONPATH": str(ROOT),
                                  "RAY_USAGE_STATS_ENABLED": "0"})
    finally:
        cluster.stop()
        left = fleet_containers(DEFAULT_PREFIX)
        for container in left:
            container.remove(force=True, v=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    assert left == []
    printed = {line.split()[0]: line.split()[-1] for line in run.stdout.splitlines() if line.startswith("batch0-")}
    ids = [f"batch0-episode{i}" for i in range(EPISODES)]
    assert sorted(printed) == ids, run.stdout
    for episode_id in ids:
        episode = EpisodeReader(printed[episode_id])      # the result's record_dir
        assert episode.directory.parent == records and episode.directory.name.startswith(episode_id)
        assert len(episode) == episode.episode["steps"] == STEPS
        video = episode.episode["recording"]["video"]
        assert video["status"] == "complete" and episode.video_path.is_file(), video
        assert video["deleted_on_desktop"] is True
    checked = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(records)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
