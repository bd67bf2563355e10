"""OSWorld's own DesktopEnv (desktop-env from PyPI with all its dependencies, torch and easyocr
included, in .venv-osworld) on the real Chromium container: scripts/osworld_chrome_tasks.py
resets each offline Chrome task (its own setup), runs a scripted pyautogui solution and
evaluates it with OSWorld's getter and metric, then resets and evaluates doing nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testbed.capability import docker_available, require
from tests.containers.support import CHROMIUM_IMAGE, build_images

ROOT = Path(__file__).resolve().parents[2]
OSWORLD_PYTHON = ROOT / ".venv-osworld" / "bin" / "python"
RUNNER = ROOT / "scripts" / "osworld_chrome_tasks.py"
# OSWorld's evaluation_examples/examples/chrome tasks that need no internet (docs/osworld.md).
OFFLINE_TASKS = {
    "bb5e4c0d-f964-439c-97b6-bdb9747de3f4",   # default search engine Bing
    "030eeff7-b492-4218-b312-701ec99ee0cc",   # Do Not Track
    "af630914-714e-4a24-a7bb-f9af687d3b91",   # the largest font size
    "2ad9387a-65d8-4e33-ad5b-7580065a27ca",   # a 'Favorites' folder on the bookmarks bar
    "2ae9ba84-3a0d-4d4c-8338-3a1478dc5fe3",   # the profile's name Thomas
    "3299584d-8f11-4457-bf4c-ce98f7600250",   # no startup page (its setup edits Preferences with jq)
}
RUN_TIMEOUT_S = 1200


def test_desktop_env_scores_solutions_one_and_no_ops_zero() -> None:
    require(docker_available(), "a Docker engine (docker.io; scripts/test.sh starts dockerd)")
    require(OSWORLD_PYTHON.exists(), "OSWorld's venv (.venv-osworld: scripts/lib.sh's ensure_osworld_venv)")
    build_images()
    run = subprocess.run([str(OSWORLD_PYTHON), str(RUNNER), "--image", CHROMIUM_IMAGE], cwd=ROOT,
                         capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    sys.stderr.write(run.stderr[-20000:])   # DesktopEnv's own log, shown when the test fails
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    scores = {(line["task"], line["mode"]): line["score"] for line in lines if "task" in line}
    assert set(scores) == {(task, mode) for task in OFFLINE_TASKS for mode in ("solution", "no-op")}, run.stdout
    for (task, mode), score in scores.items():
        assert score == (1.0 if mode == "solution" else 0.0), \
            (task, mode, [line for line in lines if line.get("task") == task])
    assert run.returncode == 0, run.stdout
