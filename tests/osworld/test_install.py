"""The project installed as docs/osworld.md says, not editable: desktopd_osworld (and the kit
and fleet code it imports) imports from a directory outside the checkout, from the installed
copy. The project is built from a copy of its tree (its build never writes into the checkout)
and installed with --no-deps into a new venv; its third-party dependencies (requests, docker,
OSWorld's desktop_env, ...) come from the test venv's site-packages through a path entry, added
after the new venv's own (the test venv's editable hook is not run from there)."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Not copied: what is not the Python project (the images' trees hold wheels, ~80 MB) or is
# another checkout's state.
NOT_THE_PROJECT = shutil.ignore_patterns(".git", ".venv*", "images", "build", "*.egg-info", "__pycache__",
                                         ".pytest_cache", ".schemathesis")
IMPORTS = ("desktopd_osworld", "desktopd_osworld.provider", "desktopd_kit", "desktopd_kit.records",
           "desktopd_fleet.provision")


@pytest.mark.timeout(600)
def test_desktopd_osworld_imports_from_a_non_editable_install_outside_the_checkout(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_THE_PROJECT)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # pip of the test venv installs into the new one (no second pip to bootstrap); the build runs
    # in its own isolated environment with the build-system's setuptools, as a user's would.
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                                "--no-deps", "--no-cache-dir", str(source)],
                               capture_output=True, text=True, timeout=540, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    own = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True, timeout=60).stdout.strip())
    (own / "test-venv-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import importlib, json\n"
             f"modules = [importlib.import_module(name) for name in {IMPORTS!r}]\n"
             "modules[0].register()   # DesktopEnv's provider factory, as docs/osworld.md has it\n"
             "print(json.dumps([m.__file__ for m in modules]))\n")
    imported = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=120,
                              cwd=elsewhere, env={"PATH": "/usr/bin:/bin", "HOME": str(elsewhere)})
    assert imported.returncode == 0, imported.stderr[-3000:]
    files = [Path(f) for f in json.loads(imported.stdout)]
    assert all(own in f.parents for f in files), files
    # The record format's schemas are package data: the installed kit has them.
    assert sorted(p.name for p in (own / "desktopd_kit" / "records" / "schema").iterdir()) == \
        ["episode.schema.json", "step.schema.json"]
