"""Lazy checks for what a test needs, and one rule: under CI=true a missing need fails, never skips."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require(ok: bool, what: str) -> None:
    """Skip a test whose need is missing; under CI that is a failure instead."""
    if ok:
        return
    if in_ci():
        pytest.fail(f"CI=true and {what} is missing: the suite must not skip it", pytrace=False)
    pytest.skip(f"{what} is missing")


def have_program(name: str) -> bool:
    return shutil.which(name) is not None


@functools.lru_cache(maxsize=1)
def docker_available() -> bool:
    """True when a Docker engine answers. Asked lazily, at most once a run, never at import."""
    if not have_program("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The Chromium binary a test launches (skipped without one; failed under CI)."""
    path = chromium_path()
    require(path is not None, "Chromium (Debian package chromium)")
    return path


@functools.lru_cache(maxsize=None)
def debian_python_has(module: str) -> bool:
    """Whether Debian's /usr/bin/python3 (what the recorders run on, as the images do) imports
    ``module``."""
    try:
        return subprocess.run(["/usr/bin/python3", "-c", f"import {module}"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
